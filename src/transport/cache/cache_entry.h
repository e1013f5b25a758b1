// cache_entry.h — a kept answer, and which answers are kept.
//
// Kept: a 200 to a request the cache takes (cache_key.h), every hop of it on
// the request's own origin, with a usable validator (ETag or Last-Modified).
// Never kept — each answer below reaches its caller as it is, and the next
// identical GET goes out unconditional:
//   * any other status (a 206, 3xx, 4xx, 5xx: no resource's current state);
//   * Cache-Control: no-store (the forge asks for it: RFC 9111 §5.2.2.5);
//   * a Set-Cookie (a session: what the next request sees may differ by it);
//   * Vary: * (no request can be told to be the same);
//   * one reached through a redirect to another origin (that origin's
//     answer, which the request's credential never saw);
//   * more bytes than CacheOptions::max_entry_bytes.
// `private` answers are kept: this is a private cache (RFC 9111 §5.2.2.7
// forbids only a shared one), one client's, keyed by its credential.
// A validator with a control byte (CR, LF, NUL, …) or over kMaxValidator
// bytes is dropped, never sent back; an answer left with none is not kept.
//
// Thread-safety: an entry is immutable once made (shared as const).
// Errors: throws std::bad_alloc only.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "forgemeter/exchange.h"
#include "forgemeter/headers.h"
#include "transport/cache/cache_key.h"

namespace forgemeter::transport_detail {

inline constexpr std::size_t kMaxValidator = 256;

struct CacheEntry {
  Headers headers;  // the kept 200's
  std::string body;
  std::string etag, last_modified;  // "" = none (or dropped)
  std::vector<std::string> vary;    // the names its Vary lists, lower-case
  std::string vary_digest;          // the request's values of those (KeyHasher::vary_digest)
  std::size_t bytes = 0;            // what the cache's bounds count (cost_of)

  // Whether `r` is the request this entry's Vary asks for.
  bool varies_with(const Request& r, const KeyHasher& keys) const {
    return vary.empty() || keys.vary_digest(r, vary) == vary_digest;
  }
};

// The bytes an entry under a key of `key_size` counts for.
std::size_t cost_of(const CacheEntry& e, std::size_t key_size) noexcept;

// The entry `res` (the answer to `r`) makes, or nullptr when it is not kept.
std::shared_ptr<const CacheEntry> entry_for(const Request& r, const Response& res, const KeyHasher& keys,
                                            std::size_t max_entry_bytes);

// Whether every hop of `res` went to `r`'s own origin.
bool stayed_on_origin(const Request& r, const Response& res);

// `value` when fit to be sent back in a header, else "".
std::string usable_validator(std::string_view value);

}  // namespace forgemeter::transport_detail
