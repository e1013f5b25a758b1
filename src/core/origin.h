// origin.h — where a URL's request goes, and which headers carry a
// credential: the rules that keep a credential to its own origin (the wire,
// when it follows a redirect) and keep the cache's entries to the origin a
// request named. One rule, so both agree.
//
// An origin is (scheme, host, port), the scheme and host lower-cased and the
// scheme's default port filled in (http 80, https 443), so http://h/ and
// http://H:80/ are one origin. The URL is read as libcurl reads it
// (test/transport/origin_test.cc holds the two side by side) but stricter: a
// URL either could read two ways (two `@`, a byte a host name never holds, a
// port past 65535) has no origin, and is sent nowhere.
//
// Thread-safety: pure functions. Errors: none (but std::bad_alloc).
#pragma once

// FORGEMETER_API here: exported for forgemeter's other components (the
// transport's rooms, the CLI), not API.
#include "forgemeter/export.h"

#include <optional>
#include <string>
#include <string_view>

namespace forgemeter::core_detail {

struct Origin {
  std::string scheme, host, port;  // port "" for a scheme with no default port and none given
  std::string key() const { return scheme + "://" + host + ":" + port; }
  friend bool operator==(const Origin&, const Origin&) = default;
};

// The URL's origin (`scheme://[userinfo@]host[:port][/?#…]`), or nullopt.
FORGEMETER_API std::optional<Origin> origin_of(std::string_view url);

// "scheme://host:port" (for equality checks), or "" for an unreadable URL.
FORGEMETER_API std::string origin_key(std::string_view url);

// Only http and https are ever requested.
constexpr bool allowed_scheme(std::string_view scheme) noexcept { return scheme == "http" || scheme == "https"; }

// Headers that carry credentials, any case: Authorization, Cookie,
// Proxy-Authorization, GitLab's PRIVATE-TOKEN and JOB-TOKEN. Never sent to a
// different origin, and part of a cache key (never kept).
FORGEMETER_API bool is_credential_header(std::string_view name) noexcept;

}  // namespace forgemeter::core_detail
