#include "testforge/github_shapes.h"

#include <charconv>
#include <nlohmann/json.hpp>
#include <vector>

namespace forgemeter::testforge {
namespace {

using nlohmann::json;

// A stable id per name: GitHub's ids are numbers, a client may key on them.
std::uint64_t id_of(std::string_view what) { return std::hash<std::string_view>{}(what) % 1'000'000'000 + 1; }

json user(std::string_view login) {
  return {{"login", std::string(login)}, {"id", id_of(login)}, {"type", "User"}, {"site_admin", false}};
}

std::optional<std::size_t> number(std::string_view s) {
  std::size_t n = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return n;
}

// `json` without its braces, after a comma: to follow the forge's own fields.
std::string fields_after(const json& j) {
  const std::string text = j.dump();
  return text.size() <= 2 ? std::string() : "," + text.substr(1, text.size() - 2);
}

json repo_json(std::string_view origin, std::string_view owner, std::string_view repo) {
  const std::string full = std::string(owner) + "/" + std::string(repo);
  const std::string url = std::string(origin) + "/repos/" + full;
  return {{"id", id_of(full)},
          {"node_id", "R_" + std::to_string(id_of(full))},
          {"name", std::string(repo)},
          {"full_name", full},
          {"owner", user(owner)},
          {"private", false},
          {"url", url},
          {"html_url", "https://forge.test/" + full},
          {"default_branch", "main"},
          {"pulls_url", url + "/pulls{/number}"}};
}

json pull_json(std::string_view origin, std::string_view owner, std::string_view repo, std::size_t n) {
  const std::string full = std::string(owner) + "/" + std::string(repo);
  const std::string num = std::to_string(n);
  const auto branch = [&](std::string_view ref) {
    return json{{"label", std::string(owner) + ":" + std::string(ref)},
                {"ref", std::string(ref)},
                {"sha", std::string(40 - std::min<std::size_t>(40, num.size()), '0') + num}};
  };
  return {{"id", id_of(full + "#" + num)},
          {"node_id", "PR_" + std::to_string(id_of(full + "#" + num))},
          {"number", n},
          {"state", "open"},
          {"title", "pull " + num},
          {"url", std::string(origin) + "/repos/" + full + "/pulls/" + num},
          {"html_url", "https://forge.test/" + full + "/pull/" + num},
          {"user", user(owner)},
          {"head", branch("topic-" + num)},
          {"base", branch("main")},
          {"draft", false},
          {"locked", false}};
}

}  // namespace

std::optional<Shape> shape_of(std::string_view path) {
  if (!path.starts_with("/repos/")) return std::nullopt;
  std::vector<std::string_view> part;
  for (std::string_view rest = path.substr(7);;) {
    const std::size_t slash = rest.find('/');
    part.push_back(rest.substr(0, slash));
    if (part.back().empty() || part.size() > 4) return std::nullopt;  // deeper than /repos/o/r/pulls/n
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  Shape s{Shape::repo, std::string(part[0]), part.size() > 1 ? std::string(part[1]) : std::string(), 0};
  if (part.size() == 2) return s;
  if (part.size() < 3 || part[2] != "pulls") return std::nullopt;
  s.kind = Shape::pulls;
  if (part.size() == 3) return s;
  const auto n = number(part[3]);
  if (!n || *n == 0) return std::nullopt;
  s.kind = Shape::pull;
  s.number = *n;
  return s;
}

std::string shape_fields(const Shape& s, std::string_view origin) {
  if (s.kind == Shape::repo) return fields_after(repo_json(origin, s.owner, s.repo_name));
  if (s.kind == Shape::pull) return fields_after(pull_json(origin, s.owner, s.repo_name, s.number));
  return {};
}

std::string pull_object(std::string_view origin, std::string_view owner, std::string_view repo, std::size_t n) {
  return pull_json(origin, owner, repo, n).dump();
}

std::string repo_object(std::string_view origin, std::string_view owner, std::string_view repo) {
  return repo_json(origin, owner, repo).dump();
}

Page page_of(std::optional<std::string_view> page, std::optional<std::string_view> per_page, std::size_t items) {
  Page p;
  if (const auto n = per_page ? number(*per_page) : std::nullopt; n && *n > 0)
    p.per_page = std::min<std::size_t>(*n, 100);
  if (const auto n = page ? number(*page) : std::nullopt; n && *n > 0) p.page = std::min<std::size_t>(*n, 1'000'000);
  p.last = std::max<std::size_t>(1, (items + p.per_page - 1) / p.per_page);
  return p;
}

}  // namespace forgemeter::testforge
