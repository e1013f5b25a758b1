// redirect_policy.h — where a redirect may go and what a hop may carry.
//
// Origins are compared as (scheme, host, port), lower-cased, with the scheme's
// default port filled in, so http://h/ and http://H:80/ are one origin.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace forgemeter::transport_detail {

struct Origin {
  std::string scheme, host, port;
  std::string key() const { return scheme + "://" + host + ":" + port; }
  friend bool operator==(const Origin&, const Origin&) = default;
};

// The URL's origin, or nullopt when libcurl's URL parser rejects it.
std::optional<Origin> origin_of(std::string_view url);

// "scheme://host:port" (for equality checks), or "" for an unreadable URL.
std::string origin_key(std::string_view url);

// `url` without its userinfo (`user:password@`), as libcurl reads the URL:
// a redirect's Location is followed without it, since libcurl would send it
// as Basic credentials to wherever the forge pointed. `url` itself when it
// has none, or when libcurl cannot parse it; "" (no URL) when it has some
// that could not be taken off.
std::string without_userinfo(const std::string& url);

// Only http and https are ever requested.
bool allowed_scheme(std::string_view scheme) noexcept;

// 301, 302, 303, 307, 308.
bool is_redirect(int status) noexcept;

// The method of the next hop: POST (and any non-HEAD method on 303) becomes
// GET on 301/302/303; 307/308 keep the method.
std::string next_method(int status, const std::string& method);

// Headers that carry credentials, any case: Authorization, Cookie,
// Proxy-Authorization, GitLab's PRIVATE-TOKEN and JOB-TOKEN. Never sent to a
// different origin.
bool is_credential_header(std::string_view name) noexcept;

}  // namespace forgemeter::transport_detail
