// By replica: which source spent what, per hour and per lane, in each format.
#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "meter/civil.h"
#include "report/errors.h"
#include "report/render_views.h"

namespace forgemeter::report {

using meter::hour_text;

namespace {

const SourceHour kNoRequests{};

// A source's requests in an hour (none when it only wrote budget or answers lines).
const SourceHour& requests_of(const FleetHour& h, std::uint32_t source) {
  auto it = h.by_source.find(source);
  return it == h.by_source.end() ? kNoRequests : it->second;
}

bool partial_for(const FleetHour& h, std::uint32_t source) {
  return std::binary_search(h.partial_sources.begin(), h.partial_sources.end(), source);
}

std::uint64_t lane_count(const SourceHour& s, const std::string& lane) {
  auto it = s.lanes.find(lane);
  return it == s.lanes.end() ? 0 : it->second;
}

// `to += n` over the whole report: a source's hours can pass 2^64-1 where no
// single hour does; that is no real log, and the sum is refused, not wrapped.
void add_total(std::uint64_t& to, std::uint64_t n, const std::string& source) {
  if (__builtin_add_overflow(to, n, &to))
    throw ReportError(fmt::format(
        "the requests of {} over the report pass 2^64-1 (18446744073709551615); check the inputs", json_quote(source)));
}

// A source's requests over every hour of the report.
struct ReplicaTotal {
  std::uint64_t hours = 0;  // hours with any line from it
  SourceHour sums;
};

std::map<std::uint32_t, ReplicaTotal> replica_totals(const ReportData& r) {
  std::map<std::uint32_t, ReplicaTotal> totals;
  // Each source's lanes of every hour, summed once at the end (hours may
  // name 100 000 lanes each: never inserted one at a time).
  std::map<std::uint32_t, std::vector<LaneSums::value_type>> lanes;
  for (const FleetHour& h : r.hours)
    for (std::uint32_t source : h.sources) {
      ReplicaTotal& t = totals[source];
      ++t.hours;
      const SourceHour& s = requests_of(h, source);
      add_total(t.sums.requests, s.requests, r.sources.at(source));
      auto& to = lanes[source];
      to.insert(to.end(), s.lanes.begin(), s.lanes.end());
    }
  for (auto& [source, t] : totals) {
    const std::string& name = r.sources.at(source);
    t.sums.lanes = LaneSums::from_unsorted(std::move(lanes[source]),
                                           [&](std::uint64_t& to, std::uint64_t n) { add_total(to, n, name); });
  }
  return totals;
}

void add_lane_cells(Row& row, const SourceHour& s, const std::vector<std::string>& lanes) {
  for (const auto& l : lanes) {
    const std::uint64_t n = lane_count(s, l);
    row.push_back(n == 0 ? "-" : fmt::to_string(n));
  }
}

std::string lanes_json(const SourceHour& s) {
  std::string o = "{";
  for (const auto& [lane, n] : s.lanes) o += fmt::format("{}{}:{}", o.size() > 1 ? "," : "", json_quote(lane), n);
  return o + "}";
}

}  // namespace

std::string render_replica_table(const ReportData& r) {
  if (r.hours.empty()) return "no meter lines found\n";
  const auto lanes = all_lanes(r.hours);
  Row head{"HOUR ENDING", "REPLICA", "REQUESTS"};
  head.insert(head.end(), lanes.begin(), lanes.end());
  head.emplace_back("NOTES");
  std::vector<Row> rows{head};
  for (const FleetHour& h : r.hours)
    for (std::uint32_t source : h.sources) {
      const SourceHour& s = requests_of(h, source);
      Row row{hour_text(h.hour_ending), r.sources.at(source), fmt::to_string(s.requests)};
      add_lane_cells(row, s, lanes);
      row.emplace_back(partial_for(h, source) ? "partial" : "");
      rows.push_back(std::move(row));
    }
  std::string out;
  print_rows(out, std::move(rows));

  out += "\nby replica, all hours\n";
  Row total_head{"REPLICA", "HOURS", "REQUESTS"};
  total_head.insert(total_head.end(), lanes.begin(), lanes.end());
  std::vector<Row> totals{total_head};
  for (const auto& [source, t] : replica_totals(r)) {
    Row row{r.sources.at(source), fmt::to_string(t.hours), fmt::to_string(t.sums.requests)};
    add_lane_cells(row, t.sums, lanes);
    totals.push_back(std::move(row));
  }
  print_rows(out, std::move(totals));
  return out;
}

std::string render_replica_json(const ReportData& r) {
  std::string out;
  for (const FleetHour& h : r.hours)
    for (std::uint32_t source : h.sources) {
      const SourceHour& s = requests_of(h, source);
      out += fmt::format(R"({{"hour_ending":{},"hour_start":{},"source":{},"requests":{},"lanes":{},"partial":{}}})",
                         json_quote(hour_text(h.hour_ending)), json_quote(hour_text(h.hour_start())),
                         json_quote(r.sources.at(source)), s.requests, lanes_json(s), partial_for(h, source));
      out += "\n";
    }
  return out;
}

std::string render_replica_csv(const ReportData& r) {
  const auto lanes = all_lanes(r.hours);
  std::string out = "hour_ending,source,requests,partial";
  for (const auto& l : lanes) out += "," + csv_field("lane:" + l);
  out += "\n";
  for (const FleetHour& h : r.hours)
    for (std::uint32_t source : h.sources) {
      const SourceHour& s = requests_of(h, source);
      out += fmt::format("{},{},{},{}", hour_text(h.hour_ending), csv_field(r.sources.at(source)), s.requests,
                         partial_for(h, source));
      for (const auto& l : lanes) out += fmt::format(",{}", lane_count(s, l));
      out += "\n";
    }
  return out;
}

std::string replica_html(const ReportData& r) {
  const auto lanes = all_lanes(r.hours);
  std::string head;
  for (const auto& l : lanes) head += "<th>" + html_escape(l) + "</th>";
  auto lane_cells = [&](const SourceHour& s) {
    std::string cells;
    for (const auto& l : lanes) cells += fmt::format("<td class=n>{}</td>", lane_count(s, l));
    return cells;
  };
  std::string out = fmt::format(
      "<h2>Requests by replica</h2>\n<table class=replicas><thead><tr><th>replica</th><th>hours</th>"
      "<th>requests</th>{}</tr></thead>\n<tbody>\n",
      head);
  for (const auto& [source, t] : replica_totals(r))
    out += fmt::format("<tr><td>{}</td><td class=n>{}</td><td class=n>{}</td>{}</tr>\n",
                       html_escape(r.sources.at(source)), t.hours, t.sums.requests, lane_cells(t.sums));
  out += fmt::format(
      "</tbody></table>\n<table class=replica-hours><thead><tr><th>hour ending</th><th>replica</th>"
      "<th>requests</th>{}</tr></thead>\n<tbody>\n",
      head);
  for (const FleetHour& h : r.hours)
    for (std::uint32_t source : h.sources)
      out += fmt::format("<tr><td>{}{}</td><td>{}</td><td class=n>{}</td>{}</tr>\n", hour_text(h.hour_ending),
                         partial_for(h, source) ? " <small>(partial)</small>" : "", html_escape(r.sources.at(source)),
                         requests_of(h, source).requests, lane_cells(requests_of(h, source)));
  return out + "</tbody></table>\n";
}

}  // namespace forgemeter::report
