// cache_status.h — the `Cache-Status` field (RFC 9211) of an answer the
// Transport's cache saw, named `forgemeter`. Never `hit`: the cache serves
// nothing without asking the forge, so every answer says what it forwarded.
//
//   stored       forgemeter; fwd=uri-miss; stored       nothing kept, the answer now is
//   not_stored   forgemeter; fwd=uri-miss               nothing kept, the answer not kept either
//   revalidated  forgemeter; fwd=stale; fwd-status=304  the kept answer, confirmed by a 304
//   changed      forgemeter; fwd=stale; fwd-status=N; stored   asked with the kept validator, a new answer N
//   collapsed    forgemeter; collapsed                  a copy of an identical request's answer in flight
//   bypass       forgemeter; fwd=bypass                 not for the cache (a write, a stream, GraphQL)
// Thread-safety: pure functions. Errors: none (but std::bad_alloc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace forgemeter::proxy {

inline constexpr std::string_view kCacheStatusHeader = "Cache-Status";

enum class CacheOutcome : std::uint8_t { unseen, stored, not_stored, revalidated, changed, collapsed, bypass };

// The field's value, or nullopt for `unseen` (the cache did not see it: no field).
// `upstream_status`: the forge's status, for `changed`.
std::optional<std::string> cache_status(CacheOutcome outcome, int upstream_status = 200);

}  // namespace forgemeter::proxy
