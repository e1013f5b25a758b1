// request_checks.h — what a request must be for the Transport to send it.
//
// A method and a header name are RFC 9110 tokens; no URL holds a control
// byte, no header value or credential one but a tab (is_field_value: a CR or
// LF would split a line on the wire); the
// URL parses, names a host and is http or https; the Host header comes from
// the URL only; a body_source replaces the body (and not for HEAD); a timeout is at most kLongestTimeout (a per-hop or connect
// timeout at least 0).
#pragma once

#include <array>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "core/http_token.h"
#include "forgemeter/transport.h"
#include "transport/handle_pool.h"

namespace forgemeter::transport_detail {

using core_detail::has_control;
using core_detail::is_token;

// Whether `value` may be sent as a header field's value: no control byte but
// a tab (RFC 9110's field-value; a CR or LF would end the field and start
// another, on this hop and on every redirect's). The one check for every
// value that becomes a header: a caller's headers, the bearer, the User-Agent.
inline bool is_field_value(std::string_view value) noexcept {
  for (unsigned char c : value)
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  return true;
}

// A timeout becomes a deadline on the steady clock, in nanoseconds from
// now: past this one would overflow.
inline constexpr std::chrono::milliseconds kLongestTimeout = std::chrono::hours(100'000);
inline bool timeout_in_range(std::chrono::milliseconds t) noexcept {
  return t >= std::chrono::milliseconds::zero() && t <= kLongestTimeout;
}

// Why `r` cannot be sent, or nullopt when it can; then known.checked_origin is its
// origin_key(). `known` remembers the last URL that passed on this handle and
// its origin, so a request to the same URL is not parsed again (the checks
// are the same).
std::optional<std::string> check_request(const Request& r, HandleState& known);

}  // namespace forgemeter::transport_detail
