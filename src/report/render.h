// render.h — the fleet report in four forms: table, JSON lines, CSV, HTML page.
//
// All renderers are pure: they read a ReportData and return text. The JSON and
// CSV schemas are documented in docs/report.md.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "report/fleet.h"
#include "report/scanner.h"

namespace forgemeter::report {

struct ReportData {
  std::vector<FleetHour> hours;
  std::vector<std::string> sources;  // by source id
  ScanStats stats;
  // The instant the report is made at: the last hour is in progress when it
  // holds it, and its budgets are projected (projection.h). None: no projection.
  std::optional<Instant> now{};
  // A budget out this soon after its reset is a startup burst.
  std::chrono::seconds burst_within = std::chrono::minutes(10);
};

std::string render_table(const ReportData& r);
std::string render_json(const ReportData& r);  // one object per hour, one per line
std::string render_csv(const ReportData& r);
std::string render_html(const ReportData& r);  // self-contained page with an inline SVG chart

// The skipped-line summary for stderr ("" when nothing was skipped or lost).
std::string render_skipped(const ScanStats& s);

// Escapes for embedding text.
std::string json_quote(std::string_view s);  // a JSON string literal, quotes included
std::string html_escape(std::string_view s);

// The SVG chart of the HTML page: one <g class="bar"> per hour (its REST
// requests as stacked <rect class="seg"> per lane, its GraphQL requests as a
// narrower hatched <rect class="graphql"> beside them), a <path class="budget">
// for the core limit, a <g class="exhausted"> mark over every exhausted hour
// and a milder <g class="limited"> over an hour where only a per-minute
// resource ran out.
std::string render_svg_chart(const ReportData& r);

// Every lane that appears in any hour, report order.
std::vector<std::string> all_lanes(const std::vector<FleetHour>& hours);

// --- budget wording shared by the formats (render_budgets.cc) ---

// The limit the hour's requests are compared with: the highest core limit
// among its installations (GraphQL's points and per-minute buckets are not
// counted in requests).
std::optional<std::uint64_t> hour_limit(const FleetHour& h);
// "installation 101", or with the resource when it is not core: "installation 101 search".
std::string budget_label(const BudgetKey& key);
// The hour's lowest hourly budget: "120 at 14:52:10Z", "(graphql)" after a GraphQL
// reading; "" without a reading.
std::string lowest_text(const FleetHour& h);
// "installation 101 over its 5000 by 500", "installation 101 out at 14:47:33Z",
// "installation 101 search limited at 14:02:11Z (0 of 30)", in budget order.
std::vector<std::string> budget_notes(const FleetHour& h);
std::string join(const std::vector<std::string>& parts, std::string_view separator);

// The resources with their own short window (not core, not graphql) that
// have a reading in any hour, by name.
std::vector<std::string> window_resources(const std::vector<FleetHour>& hours);
struct ResourceSummary {
  std::optional<std::uint64_t> lowest;  // over the hour's installations and hosts
  std::optional<Instant> limited_at;    // the earliest reading of 0
};
// The readings of each resource with its own window in an hour, over its
// installations (one pass: a line may name 100 000 budgets); a resource
// without a reading that hour is not there. Views into `h`.
std::unordered_map<std::string_view, ResourceSummary> resource_summaries(const FleetHour& h);

}  // namespace forgemeter::report
