// render.h — the fleet report in four forms: table, JSON lines, CSV, HTML page.
//
// All renderers are pure: they read a ReportData and return text. The JSON and
// CSV schemas are documented in src/cli/README.md ("report output").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/fleet.h"
#include "cli/scan.h"

namespace forgemeter::cli {

struct ReportData {
  std::vector<FleetHour> hours;
  std::vector<std::string> sources;  // by source id
  ScanStats stats;
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

// The SVG chart of the HTML page: one <g class="bar"> per hour (stacked
// <rect class="seg"> per lane), a <path class="budget"> for the limit, and a
// <g class="exhausted"> mark over every exhausted hour.
std::string render_svg_chart(const ReportData& r);

// Every lane that appears in any hour, report order.
std::vector<std::string> all_lanes(const std::vector<FleetHour>& hours);

// The limit to draw for an hour: the highest limit among its installations.
std::optional<std::uint64_t> hour_limit(const FleetHour& h);

}  // namespace forgemeter::cli
