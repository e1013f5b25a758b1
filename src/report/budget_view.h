// budget_view.h — one budget of a report hour, and the forge's rules for it.
//
// GitHub keeps a separate bucket per (installation, resource): `core` (REST,
// an hour's requests, one unit each), `graphql` (an hour's points: a query
// costs one point or more), and short-window buckets such as `search` (30 a
// minute) and `code_search` (10 a minute). A report must read each the way
// the forge spends it, or one search makes an hour look exhausted:
//   * "over its limit" (the fleet's requests > limit) only means something
//     where every request costs one unit of that limit: `core`; and there a
//     conditional request answered 304 costs none, so the requests a cache
//     revalidated (lanes lines) are not counted against it;
//   * a budget at 0 exhausts the hour only when it is an hourly one (`core`,
//     `graphql`); any other resource at 0 is *limited* for its window, which
//     the report says, but it is not the hour's budget running out.
//
// Thread-safety: values. Errors: none.
#pragma once

#include <algorithm>
#include <chrono>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "forgemeter/lines.h"

namespace forgemeter::report {

using Instant = std::chrono::sys_seconds;

// How a budget is spent and refilled, by its resource's full name.
enum class BudgetKind : std::uint8_t {
  core,     // `core`: hourly, one unit a request
  graphql,  // `graphql`: hourly, in points
  other,    // `search`, `code_search`, any other name: its own (per-minute) window
};
inline BudgetKind budget_kind(std::string_view resource_name) noexcept {
  if (resource_name == "core") return BudgetKind::core;
  if (resource_name == "graphql") return BudgetKind::graphql;
  return BudgetKind::other;
}

struct BudgetKey {
  std::string host;
  Api api = Api::rest;
  std::uint64_t installation = 0;
  // As in the budget line: "" = the API's default resource (`core` for REST,
  // `graphql` for GraphQL), so the default comes first in the map; else the
  // resource as the line wrote it (`search`, `code_search`, …).
  std::string resource;
  friend auto operator<=>(const BudgetKey&, const BudgetKey&) = default;

  // The full name: `core`, `graphql`, `search`, …
  std::string_view resource_name() const {
    return resource.empty() ? default_resource(api) : std::string_view(resource);
  }
  // Whether the fleet's requests are credited to this budget: count lines name
  // no resource, so they go to the API's default one.
  bool credited() const { return resource.empty(); }
  BudgetKind kind() const { return budget_kind(resource_name()); }
};

struct BudgetView {
  BudgetKind kind = BudgetKind::core;
  std::uint64_t requests = 0;           // the fleet's N under this installation (default resource only, else 0)
  std::uint64_t revalidated = 0;        // of them, answered 304 to a cache's revalidation (free at the forge)
  std::optional<std::uint64_t> lowest;  // lowest remaining a replica saw
  Instant lowest_at{};
  std::string lowest_source;
  std::optional<Instant> resets;  // the lowest reading's reset (its window's end), when it named one
  std::optional<std::uint64_t>
      limit;  // core: FleetOptions::budget, else the highest ` of N`; others: the highest ` of N`
  std::optional<Instant> exhausted_at;  // hourly budgets: the earliest reading of remaining 0
  std::optional<Instant> limited_at;    // other resources: the earliest reading of remaining 0

  bool hourly() const { return kind != BudgetKind::other; }
  // What the forge charged of `requests`: all but the revalidations' 304s.
  std::uint64_t charged() const { return requests - std::min(revalidated, requests); }
  bool over() const { return kind == BudgetKind::core && limit && charged() > *limit; }
  bool exhausted() const { return over() || exhausted_at.has_value(); }
  bool limited() const { return limited_at.has_value(); }
};

}  // namespace forgemeter::report
