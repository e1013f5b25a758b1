// cache_key.h — which requests the cache takes, and the key it files them by.
//
// The cache takes a GET without a body (or body_source) to a REST URL (GraphQL is a POST, and
// its answers are no resource's) that carries none of the headers by which a
// caller asks for something the cache would change: a conditional
// (If-None-Match, If-Modified-Since, If-Match, If-Unmodified-Since,
// If-Range), Range, or Cache-Control. Such a request goes to the wire as it
// is, so a caller's own If-None-Match gets its 304.
//
// A key is a keyed hash (SipHash-2-4, 128 bits: keyed_hash.h; its key drawn
// from the kernel's random source for each Transport and never written
// anywhere) of the method, URL, installation,
// bearer, whether redirects are followed, and every credential header (core/origin.h), each length-
// prefixed: two credentials never share a key, and no secret is kept — a
// key cannot be turned back into the token even by someone who reads the
// process's memory without the Transport's own key. The answer's Vary names
// further request headers: their values are hashed the same way
// (vary_digest) and kept beside the entry.
//
// Thread-safety: a KeyHasher is immutable after construction.
// Errors: the constructor throws std::runtime_error when no random key can
// be had (std::random_device); hashing throws std::bad_alloc only.
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>

#include "forgemeter/exchange.h"
#include "transport/cache/keyed_hash.h"

namespace forgemeter::transport_detail {

// Whether the cache takes `r` (see above).
bool cache_takes(const Request& r) noexcept;

class KeyHasher {
 public:
  KeyHasher();  // a fresh random key

  // The key of `r`: 16 bytes.
  std::string key(const Request& r) const;
  // The digest of `r`'s values of the headers named in `names` (lower-case).
  std::string vary_digest(const Request& r, std::span<const std::string> names) const;

 private:
  SipKey secret_{};
};

}  // namespace forgemeter::transport_detail
