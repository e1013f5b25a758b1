// render_views.h — the report's views beside the hourly one: which replica
// spent what (render_replicas.cc), and when a budget will run out
// (render_projection.cc); and the table and CSV helpers they share with the
// hourly renderers. Pure functions of a ReportData, like render.h's.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "report/render.h"

namespace forgemeter::report {

using Row = std::vector<std::string>;

// Rows as a terminal table (render_text.cc), two spaces apart: columns of
// counts right-aligned wherever they stand; the others right-aligned too,
// except the first and the last (text, left); text from the logs made safe
// for a terminal.
void print_rows(std::string& out, std::vector<Row> rows);
// A CSV cell of text from the logs (render_data.cc): control bytes as the
// table writes them (\xNN); a cell starting with = + - @, a tab or a CR
// prefixed with ' (a spreadsheet would run it as a formula); quoted when it
// holds a comma or a quote.
std::string csv_field(std::string_view s);
// A JSON number or null, an ISO instant or null.
template <class T>
std::string opt_num(const std::optional<T>& v) {
  return v ? fmt::to_string(*v) : "null";
}
std::string opt_time(const std::optional<Instant>& t);  // render_data.cc

// --- by replica (render_replicas.cc) ---

// One row per hour and source with any line that hour: its requests, per lane.
std::string render_replica_table(const ReportData& r);
std::string render_replica_json(const ReportData& r);  // one object per hour and source
std::string render_replica_csv(const ReportData& r);
// The HTML section: every replica's totals, then its requests per hour.
std::string replica_html(const ReportData& r);

// --- the hour in progress and startup bursts (render_projection.cc) ---

// The table's section ("" when there is nothing to say).
std::string projection_text(const ReportData& r);
// The JSON keys of an hour: `"in_progress":…,"projections":[…],"startup_bursts":[…]`.
std::string projection_json(const ReportData& r, const FleetHour& h);
// The HTML section ("" when there is nothing to say).
std::string projection_html(const ReportData& r);

// --- what a cache spared each lane, and time waited (render_economy.cc) ---
// Every part is "" for a report whose input had no lanes line.

// A LaneEconomy's numbers, named as the report writes them, in the lanes
// line's order: revalidated, coalesced, paused_ms, paced_ms, spaced_ms.
struct EconomyField {
  std::string_view name;
  std::uint64_t value = 0;
};
inline constexpr std::size_t kEconomyFields = 2 + kWaitCauses;
std::array<EconomyField, kEconomyFields> economy_fields(const LaneEconomy& e);
// The lanes with a lanes-line entry in any hour, report order.
std::vector<std::string> economy_lanes(const std::vector<FleetHour>& hours);
// The table's section: one row per hour, host, api and lane.
std::string economy_text(const ReportData& r);
// The JSON key of an hour, with its leading comma: `,"lanes_economy":[…]`.
std::string economy_json(const FleetHour& h);
// The CSV columns (`revalidated:<lane>`, … per lane of `lanes`) and an hour's
// cells for them (the lane's sums over hosts), each with its leading comma.
std::string economy_csv_head(const std::vector<std::string>& lanes);
std::string economy_csv_cells(const FleetHour& h, const std::vector<std::string>& lanes);
// The HTML section.
std::string economy_html(const ReportData& r);

}  // namespace forgemeter::report
