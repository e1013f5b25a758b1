// keyed_hash.h — SipHash-2-4 with a 128-bit output (Aumasson and Bernstein,
// 2012): a keyed pseudo-random function, for cache keys that must not be
// told apart or forged without the key, and never turned back into the
// credential they were made from. Chosen over HMAC-SHA256 for its cost (a
// few hundred instructions for a request's key against ~20k for OpenSSL's
// one-shot HMAC): the key is secret and never leaves the process, so its
// 128 bits are what the cache needs.
//
// Thread-safety: pure. Errors: none.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace forgemeter::transport_detail {

using SipKey = std::array<std::uint64_t, 2>;
using Sip128 = std::array<unsigned char, 16>;  // the reference's byte order

Sip128 siphash128(const SipKey& key, std::string_view message) noexcept;

}  // namespace forgemeter::transport_detail
