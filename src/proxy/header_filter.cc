#include "proxy/header_filter.h"

#include <utility>

#include "core/ascii.h"
#include "core/http_token.h"

namespace forgemeter::proxy {
namespace {

using core_detail::iequals;
using core_detail::istarts_with;
using core_detail::trimmed;
using View = std::pair<std::string_view, std::string_view>;

// The tokens every Connection field names (RFC 9110 §7.6.1: they are this connection's too).
std::vector<std::string_view> connection_tokens(const std::vector<View>& fields) {
  std::vector<std::string_view> out;
  for (const auto& [n, v] : fields) {
    if (!iequals(n, "Connection")) continue;
    std::string_view list = v;
    while (!list.empty()) {
      const std::size_t comma = list.find(',');
      if (const auto token = trimmed(list.substr(0, comma)); !token.empty()) out.push_back(token);
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
    }
  }
  return out;
}

bool named(const std::vector<std::string_view>& tokens, std::string_view name) {
  for (const auto t : tokens)
    if (iequals(t, name)) return true;
  return false;
}

// The fields that cross (their hop-by-hop ones and `extra` dropped).
template <class Extra>
std::vector<Field> crossing(const std::vector<View>& fields, Extra extra) {
  const auto tokens = connection_tokens(fields);
  std::vector<Field> out;
  out.reserve(fields.size());
  for (const auto& [name, value] : fields) {
    if (is_hop_by_hop(name) || extra(name, value) || named(tokens, name)) continue;
    out.emplace_back(std::string(name), std::string(value));
  }
  return out;
}

std::vector<Field> outbound(const std::vector<View>& fields, bool reframed) {
  return crossing(fields, [reframed](std::string_view name, std::string_view value) {
    if (reframed && (iequals(name, "Content-Length") || iequals(name, "Transfer-Encoding"))) return true;
    return why_bad_field(name, value).has_value();
  });
}

}  // namespace

bool is_hop_by_hop(std::string_view name) noexcept {
  for (std::string_view h : {"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate",
                             "Proxy-Authorization", "TE", "Trailer", "Transfer-Encoding", "Upgrade"})
    if (iequals(name, h)) return true;
  return false;
}

std::optional<std::string> why_bad_field(std::string_view name, std::string_view value) {
  if (!core_detail::is_token(name)) return "a header name that is not a token";
  for (char c : value)
    if (c == '\r' || c == '\n' || c == '\0') return "a header value holding CR, LF or NUL";
  return std::nullopt;
}

Inbound filter_request(const std::vector<Field>& fields, bool reframed) {
  Inbound in;
  std::vector<View> views;
  views.reserve(fields.size());
  for (const auto& [name, value] : fields) {
    if (auto why = why_bad_field(name, value)) {
      in.refused = std::move(*why);
      return in;
    }
    views.emplace_back(name, value);
    if (iequals(name, kLaneHeader) && !in.lane) in.lane = value;
    if (iequals(name, kInstallationHeader) && !in.installation) in.installation = value;
  }
  in.forward = crossing(views, [reframed](std::string_view name, std::string_view) {
    return istarts_with(name, kForgemeterPrefix) || iequals(name, "Host") || iequals(name, "Expect") ||
           (reframed && iequals(name, "Content-Length"));
  });
  return in;
}

std::vector<Field> filter_response(const Headers& fields, bool reframed) {
  std::vector<View> views;
  views.reserve(fields.size());
  for (const auto f : fields) views.emplace_back(f.name, f.value);
  return outbound(views, reframed);
}

std::vector<Field> filter_response(const std::vector<Field>& fields, bool reframed) {
  std::vector<View> views;
  views.reserve(fields.size());
  for (const auto& [name, value] : fields) views.emplace_back(name, value);
  return outbound(views, reframed);
}

}  // namespace forgemeter::proxy
