#include "forgemeter/url.h"

namespace forgemeter {
namespace {

// The first of `a`, `b` or `c` in `s` from `from`, or npos. A plain loop:
// find_first_of asks memchr once a character (several times the cost, on
// every request's URL).
std::size_t first_of(std::string_view s, char a, char b, char c, std::size_t from = 0) noexcept {
  for (std::size_t i = from; i < s.size(); ++i)
    if (s[i] == a || s[i] == b || s[i] == c) return i;
  return std::string_view::npos;
}

// [scheme://][userinfo@]authority[/path][?query][#fragment]
std::string_view authority_and_rest(std::string_view url, std::string_view* rest) noexcept {
  auto scheme_end = url.find("://");
  std::string_view s = scheme_end == std::string_view::npos ? url : url.substr(scheme_end + 3);
  auto end = first_of(s, '/', '?', '#');
  std::string_view authority = s.substr(0, end);
  *rest = end == std::string_view::npos ? std::string_view{} : s.substr(end);
  auto at = authority.rfind('@');
  if (at != std::string_view::npos) authority = authority.substr(at + 1);
  return authority;
}

}  // namespace

std::string_view to_string(Api api) noexcept { return api == Api::graphql ? "graphql" : "rest"; }

std::string host_of(std::string_view url) {
  std::string_view rest;
  std::string_view authority = authority_and_rest(url, &rest);
  std::string host(authority);
  for (char& c : host)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return host;
}

std::string_view path_of(std::string_view url) noexcept {
  std::string_view rest;
  authority_and_rest(url, &rest);
  auto end = first_of(rest, '?', '#', '#');
  std::string_view path = rest.substr(0, end);
  return path.empty() ? std::string_view("/") : path;
}

Api api_of_path(std::string_view path) noexcept {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  return (path == "/graphql" || path == "/api/graphql") ? Api::graphql : Api::rest;
}

std::string_view resource_of_path(std::string_view path) noexcept {
  if (api_of_path(path) == Api::graphql) return "graphql";
  if (path.starts_with("/api/v3/")) path.remove_prefix(7);  // GitHub Enterprise Server's REST root
  if (path == "/search/code" || path.starts_with("/search/code/")) return "code_search";
  if (path.starts_with("/search/")) return "search";
  return "core";
}

}  // namespace forgemeter
