// What a cache spared each lane and how long each lane waited (the lanes
// lines), in every format. Nothing is written for a report whose input had
// no lanes line, so such reports read as before the line existed.
#include <algorithm>
#include <iterator>
#include <unordered_map>
#include <unordered_set>

#include "meter/civil.h"
#include "report/render_views.h"

namespace forgemeter::report {

using meter::hour_text;

std::array<EconomyField, kEconomyFields> economy_fields(const LaneEconomy& e) {
  return {{{"revalidated", e.revalidated},
           {"coalesced", e.coalesced},
           {"paused_ms", e.waited_ms[static_cast<std::size_t>(WaitCause::pause)]},
           {"paced_ms", e.waited_ms[static_cast<std::size_t>(WaitCause::pacing)]},
           {"spaced_ms", e.waited_ms[static_cast<std::size_t>(WaitCause::secondary)]}}};
}

std::vector<std::string> economy_lanes(const std::vector<FleetHour>& hours) {
  std::unordered_set<std::string_view> seen;
  std::vector<std::string> lanes;
  for (const FleetHour& h : hours)
    for (const auto& [key, e] : h.economy)
      if (seen.insert(key.lane).second) lanes.push_back(key.lane);
  std::sort(lanes.begin(), lanes.end(), LaneOrder());
  return lanes;
}

namespace {

// An hour's sums per lane, over its hosts and APIs, in one pass (no wrap:
// the report notes an hour whose sums overflowed).
std::unordered_map<std::string_view, LaneEconomy> lane_totals(const FleetHour& h) {
  std::unordered_map<std::string_view, LaneEconomy> totals;
  for (const auto& [key, e] : h.economy) {
    LaneEconomy& sum = totals[key.lane];
    sum.revalidated += e.revalidated;
    sum.coalesced += e.coalesced;
    for (std::size_t c = 0; c < kWaitCauses; ++c) sum.waited_ms[c] += e.waited_ms[c];
  }
  return totals;
}

// A field's name as a table heading: "paused_ms" -> "PAUSED MS".
std::string heading(std::string_view name) {
  std::string out;
  for (char c : name) out += c == '_' ? ' ' : static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return out;
}

}  // namespace

std::string economy_text(const ReportData& r) {
  Row head{"HOUR ENDING", "HOST", "API", "LANE"};
  for (const auto& f : economy_fields({})) head.push_back(heading(f.name));
  std::vector<Row> rows{head};
  for (const FleetHour& h : r.hours)
    for (const auto& [key, e] : h.economy) {
      Row row{hour_text(h.hour_ending), key.host, std::string(to_string(key.api)), key.lane};
      for (const auto& f : economy_fields(e)) row.push_back(f.value == 0 ? "-" : fmt::to_string(f.value));
      rows.push_back(std::move(row));
    }
  if (rows.size() == 1) return {};
  std::string out = "\nby lane: what a cache spared, and time waited (ms)\n";
  print_rows(out, std::move(rows));
  return out;
}

std::string economy_json(const FleetHour& h) {
  if (h.economy.empty()) return {};
  std::string o = R"(,"lanes_economy":[)";
  const char* sep = "";
  for (const auto& [key, e] : h.economy) {
    o += fmt::format(R"({}{{"host":{},"api":"{}","lane":{})", std::exchange(sep, ","), json_quote(key.host),
                     to_string(key.api), json_quote(key.lane));
    for (const auto& f : economy_fields(e)) o += fmt::format(R"(,"{}":{})", f.name, f.value);
    o += '}';
  }
  return o + ']';
}

std::string economy_csv_head(const std::vector<std::string>& lanes) {
  std::string out;
  for (const auto& l : lanes)
    for (const auto& f : economy_fields({})) out += "," + csv_field(std::string(f.name) + ":" + l);
  return out;
}

std::string economy_csv_cells(const FleetHour& h, const std::vector<std::string>& lanes) {
  std::string out;
  const auto totals = lane_totals(h);
  for (const auto& l : lanes) {
    const auto it = totals.find(l);
    for (const auto& f : economy_fields(it == totals.end() ? LaneEconomy{} : it->second))
      fmt::format_to(std::back_inserter(out), ",{}", f.value);
  }
  return out;
}

std::string economy_html(const ReportData& r) {
  std::string rows;
  for (const FleetHour& h : r.hours)
    for (const auto& [key, e] : h.economy) {
      rows += fmt::format("<tr><td>{}</td><td>{} {}</td><td>{}</td>", hour_text(h.hour_ending), html_escape(key.host),
                          to_string(key.api), html_escape(key.lane));
      for (const auto& f : economy_fields(e)) rows += fmt::format("<td class=n>{}</td>", f.value);
      rows += "</tr>\n";
    }
  if (rows.empty()) return {};
  std::string head;
  for (const auto& f : economy_fields({})) head += fmt::format("<th>{}</th>", f.name);
  return fmt::format(
      "<h2>What a cache spared each lane, and time waited</h2>\n<table class=economy><thead><tr><th>hour "
      "ending</th><th>host, api</th><th>lane</th>{}</tr></thead>\n<tbody>\n{}</tbody></table>\n",
      head, rows);
}

}  // namespace forgemeter::report
