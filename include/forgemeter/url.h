// forgemeter/url.h — how a URL is charged: its host and its API.
//
//   * host_of(): the URL's host, lower-cased, with `:port` kept when the URL
//     names one (`https://API.GitHub.com:8443/x` -> `api.github.com:8443`);
//     user info is dropped. IPv6 literals keep their brackets.
//   * api_of_path(): after trimming trailing slashes, `/graphql` and
//     `/api/graphql` are GraphQL; every other path (`/repos/o/graphql` too) is REST.
//   * resource_of_path(): the GitHub bucket a request to the path is expected
//     to spend (the answer's X-RateLimit-Resource says for sure): `graphql`;
//     `code_search` for /search/code, `search` for other /search/ paths (also
//     under GHES's /api/v3); else `core`.
//
// Pure functions: thread-safe, no allocation beyond the returned string, never
// throw on any input (a URL they cannot read yields an empty host).
#pragma once

#include "forgemeter/export.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace forgemeter {

enum class Api : std::uint8_t { rest, graphql };

// "rest" or "graphql".
FORGEMETER_API std::string_view to_string(Api api) noexcept;

FORGEMETER_API std::string host_of(std::string_view url);
// The path of a URL (no query or fragment); "/" when it has none.
FORGEMETER_API std::string_view path_of(std::string_view url) noexcept;
FORGEMETER_API Api api_of_path(std::string_view path) noexcept;
inline Api api_of_url(std::string_view url) noexcept { return api_of_path(path_of(url)); }
FORGEMETER_API std::string_view resource_of_path(std::string_view path) noexcept;

}  // namespace forgemeter
