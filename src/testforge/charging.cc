#include "testforge/charging.h"

#include <charconv>

#include "core/ascii.h"
#include "forgemeter/url.h"
#include "testforge/forge.h"

namespace forgemeter::testforge {

using core_detail::iequals;

std::string_view host_name(std::string_view host_header) {
  if (auto colon = host_header.rfind(':');
      colon != std::string_view::npos && host_header.find(']') == std::string_view::npos)
    host_header = host_header.substr(0, colon);
  return host_header;
}

ForgeKind forge_kind_of(std::string_view host_header) {
  const std::string_view name = host_name(host_header);
  if (iequals(name, kGitlabHost)) return ForgeKind::gitlab;
  if (iequals(name, kGiteaHost)) return ForgeKind::gitea;
  return ForgeKind::github;
}

std::string resource_of(ForgeKind kind, std::string_view path) {
  switch (kind) {
    case ForgeKind::gitea: return "";
    case ForgeKind::gitlab: return "gitlab";
    case ForgeKind::github: break;
  }
  if (api_of_path(path) == Api::graphql) return "graphql";
  // GitHub's code search has a bucket of its own, tighter than the other searches.
  if (path == "/search/code" || path.starts_with("/search/code/")) return "code_search";
  if (path.starts_with("/search/")) return "search";
  return "core";
}

std::uint64_t cost_of(ForgeKind kind, std::string_view resource, std::string_view cost_header, bool conditional_hit) {
  if (kind == ForgeKind::github && conditional_hit) return 0;
  if (resource != "graphql") return 1;
  std::uint64_t cost = 0;
  const char* last = cost_header.data() + cost_header.size();
  auto [p, ec] = std::from_chars(cost_header.data(), last, cost);
  return (ec == std::errc{} && p == last && cost > 0) ? cost : 1;
}

}  // namespace forgemeter::testforge
