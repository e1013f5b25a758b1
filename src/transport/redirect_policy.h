// redirect_policy.h — where a redirect may go and what a hop may carry.
//
// Origins and credential headers are core's rules (core/origin.h), shared
// with the cache: a redirect is followed only to http or https, and a hop to
// another origin is sent without the credential.
#pragma once

#include <string>
#include <string_view>

#include "core/origin.h"

namespace forgemeter::transport_detail {

using core_detail::allowed_scheme;
using core_detail::is_credential_header;
using core_detail::Origin;
using core_detail::origin_key;
using core_detail::origin_of;

// `url` without its userinfo (`user:password@`), as libcurl reads the URL:
// a redirect's Location is followed without it, since libcurl would send it
// as Basic credentials to wherever the forge pointed. `url` itself when it
// has none, or when libcurl cannot parse it; "" (no URL) when it has some
// that could not be taken off.
std::string without_userinfo(const std::string& url);

// 301, 302, 303, 307, 308.
bool is_redirect(int status) noexcept;

// The method of the next hop: POST (and any non-HEAD method on 303) becomes
// GET on 301/302/303; 307/308 keep the method.
std::string next_method(int status, const std::string& method);

}  // namespace forgemeter::transport_detail
