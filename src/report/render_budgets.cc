// What the four report formats say about an hour's budgets, in one place so
// they say the same: the limit the requests are compared with, the hour's
// lowest budget, the notes (over, out, limited), the per-minute resources.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "meter/civil.h"
#include "report/render.h"

namespace forgemeter::report {

using meter::clock_text;

std::optional<std::uint64_t> hour_limit(const FleetHour& h) {
  std::optional<std::uint64_t> limit;
  for (const auto& [key, b] : h.budgets)
    if (b.kind == BudgetKind::core && b.limit && (!limit || *b.limit > *limit)) limit = b.limit;
  return limit;
}

std::string budget_label(const BudgetKey& key) {
  std::string label = fmt::format("installation {}", key.installation);
  if (key.kind() != BudgetKind::core) label += fmt::format(" {}", key.resource_name());
  return label;
}

std::string lowest_text(const FleetHour& h) {
  const BudgetView* low = h.lowest_budget();
  if (low == nullptr) return {};
  // Core is what "lowest left" always meant; a GraphQL reading says it is points.
  return fmt::format("{} at {}{}", *low->lowest, clock_text(low->lowest_at),
                     low->kind == BudgetKind::graphql ? " (graphql)" : "");
}

std::vector<std::string> budget_notes(const FleetHour& h) {
  std::vector<std::string> notes;
  for (const auto& [key, b] : h.budgets) {
    if (b.over())
      notes.push_back(fmt::format("{} over its {} by {}", budget_label(key), *b.limit, b.charged() - *b.limit));
    if (b.exhausted_at) notes.push_back(fmt::format("{} out at {}", budget_label(key), clock_text(*b.exhausted_at)));
    if (b.limited_at)
      notes.push_back(fmt::format("{} limited at {} ({}{})", budget_label(key), clock_text(*b.limited_at), *b.lowest,
                                  b.limit ? fmt::format(" of {}", *b.limit) : std::string()));
  }
  return notes;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += separator;
    out += p;
  }
  return out;
}

std::vector<std::string> window_resources(const std::vector<FleetHour>& hours) {
  std::set<std::string, std::less<>> names;
  for (const FleetHour& h : hours)
    for (const auto& [key, b] : h.budgets)
      if (!b.hourly()) names.emplace(key.resource_name());
  return {names.begin(), names.end()};
}

std::unordered_map<std::string_view, ResourceSummary> resource_summaries(const FleetHour& h) {
  std::unordered_map<std::string_view, ResourceSummary> out;
  for (const auto& [key, b] : h.budgets) {
    if (b.hourly() || !b.lowest) continue;
    ResourceSummary& s = out[key.resource_name()];
    if (!s.lowest || *b.lowest < *s.lowest) s.lowest = b.lowest;
    if (b.limited_at && (!s.limited_at || *b.limited_at < *s.limited_at)) s.limited_at = b.limited_at;
  }
  return out;
}

}  // namespace forgemeter::report
