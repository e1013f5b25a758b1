// The terminal table and the skipped-line summary.
#include <algorithm>
#include <string_view>
#include <unordered_set>

#include <fmt/format.h>

#include "core/terminal_text.h"
#include "meter/civil.h"
#include "report/render_views.h"

namespace forgemeter::report {

using core_detail::has_control_bytes;
using core_detail::terminal_text;
using meter::clock_text;
using meter::hour_text;

std::vector<std::string> all_lanes(const std::vector<FleetHour>& hours) {
  // Every hour names the same few lanes: a hash set finds them again cheaply,
  // and only the distinct ones are sorted.
  std::unordered_set<std::string_view> seen;
  std::vector<std::string> lanes;
  for (const FleetHour& h : hours)
    for (const auto& [lane, n] : h.lanes)
      if (seen.insert(lane).second) lanes.push_back(lane);
  std::sort(lanes.begin(), lanes.end(), LaneOrder());
  return lanes;
}

namespace {

bool is_count(std::string_view cell) {
  return !cell.empty() && std::all_of(cell.begin(), cell.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Columns of counts (every cell under the header a count or "-", at least
// one a count): their digits line up on the right wherever the column
// stands, the last one included.
std::vector<bool> count_columns(const std::vector<Row>& rows) {
  std::vector<bool> counts, seen;
  for (std::size_t r = 1; r < rows.size(); ++r)
    for (std::size_t i = 0; i < rows[r].size(); ++i) {
      if (counts.size() <= i) {
        counts.resize(i + 1, true);
        seen.resize(i + 1, false);
      }
      const std::string& cell = rows[r][i];
      if (is_count(cell))
        seen[i] = true;
      else if (cell != "-")
        counts[i] = false;
    }
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = counts[i] && seen[i];
  return counts;
}

}  // namespace

// Cells hold text from the logs (source names: file paths, --source-field
// values): each is made safe for a terminal here, the table's one way out.
void print_rows(std::string& out, std::vector<Row> rows) {
  for (Row& r : rows)
    for (std::string& cell : r)
      if (has_control_bytes(cell)) cell = terminal_text(cell);
  std::vector<std::size_t> width;
  for (const Row& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], r[i].size());
    }
  const std::vector<bool> counts = count_columns(rows);
  for (const Row& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (i > 0) line += "  ";
      const bool count = i < counts.size() && counts[i];
      if (!count && (i == 0 || i + 1 == r.size()))
        line += fmt::format("{:<{}}", r[i], i + 1 == r.size() ? 0 : width[i]);
      else
        line += fmt::format("{:>{}}", r[i], width[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
}

std::string render_table(const ReportData& r) {
  std::string out;
  if (r.hours.empty()) return "no meter lines found\n";
  auto lanes = all_lanes(r.hours);
  Row head{"HOUR ENDING", "REQUESTS", "REPLICAS"};
  for (const auto& l : lanes) head.push_back(l);
  for (const char* c : {"LOWEST LEFT", "LIMIT", "NOTES"}) head.emplace_back(c);
  std::vector<Row> rows{head};
  for (const FleetHour& h : r.hours) {
    Row row{hour_text(h.hour_ending) + (h.partial() ? " (partial)" : ""), fmt::to_string(h.requests),
            fmt::to_string(h.sources.size())};
    for (const auto& l : lanes) {
      auto it = h.lanes.find(l);
      row.push_back(it == h.lanes.end() ? "-" : fmt::to_string(it->second));
    }
    const std::string lowest = lowest_text(h);
    row.push_back(lowest.empty() ? "-" : lowest);
    auto limit = hour_limit(h);
    row.push_back(limit ? fmt::to_string(*limit) : "-");
    row.push_back((h.exhausted() ? "EXHAUSTED: " : "") + join(budget_notes(h), "; "));
    rows.push_back(std::move(row));
  }
  print_rows(out, std::move(rows));
  out += projection_text(r);

  out += "\nby host and api\n";
  std::vector<Row> hosts{{"HOUR ENDING", "HOST", "API", "REQUESTS", "ANSWERS"}};
  for (const FleetHour& h : r.hours)
    for (const auto& [key, n] : h.hosts) {
      std::string answers;
      if (auto it = h.answers.find(key); it != h.answers.end())
        for (std::size_t c = 0; c < kAnswerClasses; ++c)
          if (it->second[c] != 0)
            answers += fmt::format("{}{}={}", answers.empty() ? "" : " ", to_string(AnswerClass(c)), it->second[c]);
      hosts.push_back(
          {hour_text(h.hour_ending), key.host, std::string(to_string(key.api)), fmt::to_string(n), answers});
    }
  print_rows(out, std::move(hosts));
  out += economy_text(r);

  out += "\nby installation\n";
  // One row per budget: requests only where they are credited (the API's default resource).
  std::vector<Row> inst{{"HOUR ENDING", "INSTALLATION", "RESOURCE", "REQUESTS", "LOWEST LEFT", "SEEN BY", "LIMIT"}};
  for (const FleetHour& h : r.hours)
    for (const auto& [key, b] : h.budgets)
      inst.push_back({hour_text(h.hour_ending), fmt::format("{} {} {}", key.host, to_string(key.api), key.installation),
                      std::string(key.resource_name()), key.credited() ? fmt::to_string(b.requests) : "-",
                      b.lowest ? fmt::format("{} at {}", *b.lowest, clock_text(b.lowest_at)) : "-",
                      b.lowest ? b.lowest_source : "-", b.limit ? fmt::to_string(*b.limit) : "-"});
  if (inst.size() > 1)
    print_rows(out, std::move(inst));
  else
    out += "(no installation-labelled requests)\n";
  return out;
}

std::string render_skipped(const ScanStats& s) {
  std::string out;
  if (s.skipped > 0 && s.dropped == 0) {
    out += fmt::format("skipped {} malformed meter line{}; first reasons:\n", s.skipped, s.skipped == 1 ? "" : "s");
  } else if (s.skipped > 0) {
    out += fmt::format(
        "skipped {} meter line{}: {} malformed, {} dropped (cut by another line, over the line limit, a piece "
        "of a split line, or the input's last line without its newline); first reasons:\n",
        s.skipped, s.skipped == 1 ? "" : "s", s.skipped - s.dropped, s.dropped);
  }
  if (s.skipped > 0) {
    for (const auto& reason : s.reasons) out += "  " + terminal_text(reason) + "\n";
  }
  for (const auto& p : s.problems) out += "input problem: " + terminal_text(p) + "\n";
  for (const auto& w : s.warnings) out += "warning: " + terminal_text(w) + "\n";
  return out;
}

}  // namespace forgemeter::report
