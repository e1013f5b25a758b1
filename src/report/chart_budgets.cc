// The chart's budget lines, one per resource: the hourly limits (core,
// graphql) over the bars they are held against, and under the bars a panel
// of every resource's lowest remaining as a share of its limit (core,
// graphql, search, …: a per-minute bucket cannot be drawn against an hour's
// requests, but "how close to empty did it get" reads the same for all).
#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "meter/civil.h"
#include "report/chart.h"
#include "report/render.h"

namespace forgemeter::report {

using meter::hour_text;

namespace {

std::optional<std::uint64_t> highest_limit(const FleetHour& h, BudgetKind kind) {
  std::optional<std::uint64_t> limit;
  for (const auto& [key, b] : h.budgets)
    if (b.kind == kind && b.limit && (!limit || *b.limit > *limit)) limit = b.limit;
  return limit;
}

struct LimitStyle {
  BudgetKind kind;
  const char* resource;
  const char* stroke;
  const char* dash;
  const char* title;
};
constexpr std::array<LimitStyle, 2> kLimitStyles{{
    {BudgetKind::core, "core", "#d62828", "6 4", "core budget: REST requests an hour (the highest installation's)"},
    {BudgetKind::graphql, "graphql", "#334e68", "2 3",
     "graphql budget: points an hour (a GraphQL request costs one point or more)"},
}};

std::string resource_color(std::string_view resource, std::size_t index) {
  if (resource == "core") return "#d62828";
  if (resource == "graphql") return "#334e68";
  constexpr std::array<const char*, 4> kOthers{"#c77c02", "#3fa9c9", "#7a4b2a", "#2a9d6f"};
  return kOthers[index % kOthers.size()];
}

// The hour's lowest reading of each resource against its limit: the budget
// (installation, host) that came closest to empty. One pass over the hour's
// budgets, however many resources it names.
struct Left {
  std::uint64_t lowest = 0, limit = 0;
  double share() const { return static_cast<double>(lowest) / static_cast<double>(limit); }
};
std::unordered_map<std::string_view, Left> lowest_left(const FleetHour& h) {
  std::unordered_map<std::string_view, Left> out;
  for (const auto& [key, b] : h.budgets) {
    if (!b.lowest || !b.limit || *b.limit == 0) continue;
    const Left l{std::min(*b.lowest, *b.limit), *b.limit};
    const auto [it, fresh] = out.try_emplace(key.resource_name(), l);
    if (!fresh && l.share() < it->second.share()) it->second = l;
  }
  return out;
}

// Resources with a reading against a known limit: core, graphql, then the others by name.
std::vector<std::string> drawn_resources(const std::vector<FleetHour>& hours) {
  std::set<std::pair<int, std::string>> order;  // (kind, name)
  for (const FleetHour& h : hours)
    for (const auto& [key, b] : h.budgets)
      if (b.lowest && b.limit) order.emplace(static_cast<int>(key.kind()), key.resource_name());
  std::vector<std::string> out;
  out.reserve(order.size());
  for (const auto& [kind, name] : order) out.push_back(name);
  return out;
}

}  // namespace

std::uint64_t highest_drawn_limit(const FleetHour& h) {
  return std::max(highest_limit(h, BudgetKind::core).value_or(0), highest_limit(h, BudgetKind::graphql).value_or(0));
}

std::string budget_limit_lines(const std::vector<FleetHour>& hours, const std::vector<ChartSlot>& slots,
                               const ChartFrame& f) {
  std::string s;
  for (const LimitStyle& style : kLimitStyles) {
    std::string d;
    bool drawing = false;  // a gap (or an hour without the limit) breaks the line
    for (std::size_t i = 0; i < slots.size(); ++i) {
      const auto limit =
          slots[i].kind == ChartSlot::Kind::hour ? highest_limit(hours[slots[i].hour], style.kind) : std::nullopt;
      if (!limit) {
        drawing = false;
        continue;
      }
      const double y = f.y(static_cast<double>(*limit));
      d += fmt::format("{}{:.1f},{:.1f} L{:.1f},{:.1f} ", drawing ? "L" : "M", f.x(i), y, f.x(i + 1), y);
      drawing = true;
    }
    if (d.empty()) continue;
    d.pop_back();
    s += fmt::format(
        R"(<path class="budget" data-resource="{}" d="{}" fill="none" stroke="{}" stroke-width="2" stroke-dasharray="{}"><title>{}</title></path>)"
        "\n",
        style.resource, d, style.stroke, style.dash, style.title);
  }
  return s;
}

std::string budget_left_panel(const std::vector<FleetHour>& hours, const std::vector<ChartSlot>& slots,
                              const ChartFrame& f, double top, double& height) {
  const auto resources = drawn_resources(hours);
  height = 0;
  if (resources.empty()) return {};
  const double panel_h = 70, y0 = top + 26;
  height = panel_h + 40;
  auto y = [&](double share) { return y0 + (1 - share) * panel_h; };
  std::string s = fmt::format(
      R"(<g class="left-panel"><text x="{:.1f}" y="{:.1f}" font-size="12" fill="#222">lowest left in the hour, % of its limit:</text>)"
      "\n",
      f.left, top + 10);
  for (double share : {0.0, 0.5, 1.0})
    s += fmt::format(
        R"(<line x1="{:.1f}" x2="{:.1f}" y1="{:.1f}" y2="{:.1f}" stroke="#e5e7eb"/><text x="{:.1f}" y="{:.1f}" font-size="11" text-anchor="end" fill="#555">{:.0f}%</text>)"
        "\n",
        f.left, f.left + f.plot_w, y(share), y(share), f.left - 6, y(share) + 4, share * 100);
  std::vector<std::unordered_map<std::string_view, Left>> lefts(slots.size());
  for (std::size_t i = 0; i < slots.size(); ++i)
    if (slots[i].kind == ChartSlot::Kind::hour) lefts[i] = lowest_left(hours[slots[i].hour]);
  double key_x = f.left + 250;
  for (std::size_t r = 0; r < resources.size(); ++r) {
    const std::string& name = resources[r];
    const std::string color = resource_color(name, r);
    std::string d, points;
    bool drawing = false;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      const auto found = lefts[i].find(name);
      if (found == lefts[i].end()) {
        drawing = false;
        continue;
      }
      const Left* left = &found->second;
      const double cx = f.x(i) + f.slot / 2, cy = y(left->share());
      d += fmt::format("{}{:.1f},{:.1f} ", drawing ? "L" : "M", cx, cy);
      drawing = true;
      const std::string hour = hour_text(slots[i].hour_ending);
      points += fmt::format(
          R"(<circle data-hour="{}" data-resource="{}" data-lowest="{}" data-limit="{}" cx="{:.1f}" cy="{:.1f}" r="3" fill="{}"><title>{} {}: lowest {} of {}</title></circle>)",
          hour, html_escape(name), left->lowest, left->limit, cx, cy, color, hour, html_escape(name), left->lowest,
          left->limit);
    }
    if (d.empty()) continue;
    s += fmt::format(R"(<path class="left" data-resource="{}" d="{}" fill="none" stroke="{}" stroke-width="1.5"/>{})"
                     "\n",
                     html_escape(name), d, color, points);
    s += fmt::format(
        R"(<line x1="{:.1f}" x2="{:.1f}" y1="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="2"/><text x="{:.1f}" y="{:.1f}" font-size="12" fill="#222">{}</text>)"
        "\n",
        key_x, key_x + 16, top + 6, top + 6, color, key_x + 20, top + 10, html_escape(name));
    key_x += 40 + 7.0 * static_cast<double>(name.size());
  }
  return s + "</g>\n";
}

}  // namespace forgemeter::report
