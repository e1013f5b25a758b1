// cache_status.h — the `Cache-Status` field (RFC 9211) of an answer the
// Transport's cache saw (forgemeter::CacheOutcome, forgemeter/exchange.h),
// named `forgemeter`. Never `hit`: the cache serves nothing without asking
// the forge, so every answer says what it forwarded.
//
//   stored       forgemeter; fwd=uri-miss; stored       sent (nothing kept); kept now
//   changed      forgemeter; fwd=stale; fwd-status=200; stored   sent conditional; a new 200 kept
//   not_stored   forgemeter; fwd=uri-miss               sent; not kept
//   revalidated  forgemeter; fwd=stale; fwd-status=304  the kept answer, confirmed by a 304
//   coalesced    forgemeter; collapsed                  a copy of an identical request's answer in flight
//   bypassed     forgemeter; fwd=bypass                 not for the cache (a write, GraphQL, a client's own validator)
//   no_cache     (no field)
//
// The one answer given without asking the forge is an App's installation
// token held by the equalizer (held_tokens.h): kAppTokenCacheStatus.
// Thread-safety: pure functions. Errors: none (but std::bad_alloc).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "forgemeter/exchange.h"

namespace forgemeter::proxy {

inline constexpr std::string_view kCacheStatusHeader = "Cache-Status";
inline constexpr std::string_view kAppTokenCacheStatus = "forgemeter; hit; detail=app-token";

// The field's value, or nullopt when there is no cache (no field).
std::optional<std::string> cache_status(CacheOutcome outcome);

}  // namespace forgemeter::proxy
