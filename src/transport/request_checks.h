// request_checks.h — what a request must be for the Transport to send it.
//
// A method and a header name are RFC 9110 tokens; no URL, header value or
// credential holds a control byte (one would split a line on the wire); the
// URL parses, names a host and is http or https; the Host header comes from
// the URL only.
#pragma once

#include <string>
#include <string_view>

#include "forgemeter/transport.h"
#include "transport/handle_pool.h"

namespace forgemeter::transport_detail {

bool is_token(std::string_view s) noexcept;
bool has_control(std::string_view s) noexcept;

// Why `r` cannot be sent, or "" when it can; then known.checked_origin is its
// origin_key(). `known` remembers the last URL that passed on this handle and
// its origin, so a request to the same URL is not parsed again (the checks
// are the same).
std::string check_request(const Request& r, HandleState& known);

}  // namespace forgemeter::transport_detail
