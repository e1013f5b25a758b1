#include "core/origin.h"

#include <charconv>

#include "core/ascii.h"

namespace forgemeter::core_detail {
namespace {

bool scheme_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
}

// A byte no host name holds: what libcurl refuses in one, and what would end
// or split the authority.
bool bad_host_byte(char c) noexcept {
  const auto u = static_cast<unsigned char>(c);
  return u <= 0x20 || u == 0x7f ||
         std::string_view(" /:#?!@{}[]\\$'\"^`*<>=;,+&()%|").find(c) != std::string_view::npos;
}

bool ipv6_literal(std::string_view host) noexcept {  // inside the brackets
  if (host.empty()) return false;
  for (char c : host)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.'))
      return false;
  return true;
}

std::string default_port(std::string_view scheme) {
  if (scheme == "http") return "80";
  if (scheme == "https") return "443";
  return {};
}

}  // namespace

std::optional<Origin> origin_of(std::string_view url) {
  const auto colon = url.find(':');
  if (colon == 0 || colon == std::string_view::npos || url.substr(colon, 3) != "://") return std::nullopt;
  if (!(ascii_lower(url[0]) >= 'a' && ascii_lower(url[0]) <= 'z')) return std::nullopt;
  for (char c : url.substr(0, colon))
    if (!scheme_char(c)) return std::nullopt;
  std::string_view authority = url.substr(colon + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (const auto at = authority.find('@'); at != std::string_view::npos) {
    if (authority.find('@', at + 1) != std::string_view::npos) return std::nullopt;  // read two ways
    authority.remove_prefix(at + 1);
  }
  std::string_view host = authority, port;
  if (authority.starts_with('[')) {
    const auto close = authority.find(']');
    if (close == std::string_view::npos || !ipv6_literal(authority.substr(1, close - 1))) return std::nullopt;
    host = authority.substr(0, close + 1);
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty() && !after.starts_with(':')) return std::nullopt;
    port = after.empty() ? after : after.substr(1);
  } else if (const auto c = authority.find(':'); c != std::string_view::npos) {
    host = authority.substr(0, c);
    port = authority.substr(c + 1);
  }
  if (!host.starts_with('['))
    for (char c : host)
      if (bad_host_byte(c)) return std::nullopt;
  Origin o{ascii_lowercase(url.substr(0, colon)), ascii_lowercase(host), {}};
  if (port.empty()) {
    o.port = default_port(o.scheme);
  } else {
    unsigned n = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), n);
    if (ec != std::errc{} || end != port.data() + port.size() || n > 65535) return std::nullopt;
    o.port = std::to_string(n);
  }
  return o;
}

std::string origin_key(std::string_view url) {
  auto o = origin_of(url);
  return o ? o->key() : std::string();
}

bool is_credential_header(std::string_view name) noexcept {
  // GitLab's API tokens travel in headers of their own (PRIVATE-TOKEN, JOB-TOKEN).
  for (std::string_view c : {"Authorization", "Cookie", "Proxy-Authorization", "PRIVATE-TOKEN", "JOB-TOKEN"})
    if (iequals(name, c)) return true;
  return false;
}

}  // namespace forgemeter::core_detail
