// JSON lines and CSV: the machine-readable report (schemas in docs/report.md).
//
// The JSON is written by hand, not built as nlohmann::ordered_json values and
// dumped: that measured 4.2x the instructions of this renderer (a node and a
// string per value, a key search per insert), +78 % for a whole `--format
// json` report of a realistic log. nlohmann-json still reads the logs' JSON.
#include <iterator>
#include <utility>

#include <fmt/format.h>

#include "core/terminal_text.h"
#include "meter/civil.h"
#include "report/render_views.h"

namespace forgemeter::report {

using meter::hour_text;
using meter::instant_text;

std::string json_quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\')
      out += {'\\', c};
    else if (u < 0x20 || u == 0x7f)
      out += fmt::format("\\u{:04x}", u);
    else
      out += c;
  }
  return out + "\"";
}

namespace {

std::string names_json(const std::vector<std::uint32_t>& ids, const std::vector<std::string>& names) {
  std::string out = "[";
  for (std::size_t i = 0; i < ids.size(); ++i) out += (i ? "," : "") + json_quote(names.at(ids[i]));
  return out + "]";
}

std::string hour_json(const FleetHour& h, const ReportData& r) {
  const std::vector<std::string>& names = r.sources;
  std::string o = fmt::format(R"({{"hour_ending":{},"hour_start":{},"requests":{},"replicas":{},"sources":{},)",
                              json_quote(hour_text(h.hour_ending)), json_quote(hour_text(h.hour_start())), h.requests,
                              h.sources.size(), names_json(h.sources, names));
  o +=
      fmt::format(R"("partial":{},"partial_sources":{},"lanes":{{)", h.partial(), names_json(h.partial_sources, names));
  bool first = true;
  for (const auto& [lane, n] : h.lanes)
    o += fmt::format("{}{}:{}", std::exchange(first, false) ? "" : ",", json_quote(lane), n);
  o += R"(},"hosts":[)";
  first = true;
  for (const auto& [key, n] : h.hosts) {
    o += fmt::format(R"({}{{"host":{},"api":"{}","requests":{},"answers":{{)", std::exchange(first, false) ? "" : ",",
                     json_quote(key.host), to_string(key.api), n);
    if (auto it = h.answers.find(key); it != h.answers.end()) {
      bool f2 = true;
      for (std::size_t c = 0; c < kAnswerClasses; ++c)
        if (it->second[c] != 0)
          o += fmt::format(R"({}"{}":{})", std::exchange(f2, false) ? "" : ",", to_string(AnswerClass(c)),
                           it->second[c]);
    }
    o += "}}";
  }
  o += R"(],"installations":[)";
  first = true;
  for (const auto& [id, n] : h.installations)
    o += fmt::format(R"({}{{"installation":{},"requests":{}}})", std::exchange(first, false) ? "" : ",", id, n);
  o += R"(],"budgets":[)";
  first = true;
  // The keys of before keep their place and meaning; the resource's come last.
  for (const auto& [key, b] : h.budgets) {
    o += fmt::format(R"({}{{"host":{},"api":"{}","installation":{},"requests":{},"lowest_remaining":{},)",
                     std::exchange(first, false) ? "" : ",", json_quote(key.host), to_string(key.api), key.installation,
                     key.credited() ? fmt::to_string(b.requests) : "null", opt_num(b.lowest));
    o += fmt::format(R"("lowest_at":{},"seen_by":{},"limit":{},"over_limit":{},"exhausted_at":{},)",
                     b.lowest ? json_quote(instant_text(b.lowest_at)) : "null",
                     b.lowest ? json_quote(b.lowest_source) : "null", opt_num(b.limit), b.over(),
                     opt_time(b.exhausted_at));
    o += fmt::format(R"("resource":{},"hourly":{},"limited_at":{},"resets":{}}})", json_quote(key.resource_name()),
                     b.hourly(), opt_time(b.limited_at), opt_time(b.resets));
  }
  o += ']' + economy_json(h);
  o +=
      fmt::format(R"(,"exhausted":{},"first_exhausted_at":{},"limited":{},"first_limited_at":{},{}}})", h.exhausted(),
                  opt_time(h.first_exhausted_at()), h.limited(), opt_time(h.first_limited_at()), projection_json(r, h));
  return o;
}

}  // namespace

std::string opt_time(const std::optional<Instant>& t) { return t ? json_quote(instant_text(*t)) : "null"; }

std::string csv_field(std::string_view s) {
  std::string text = core_detail::terminal_text(s);  // no byte a terminal (or a CSV reader) acts on
  if (!s.empty() && std::string_view("=+-@\t\r").find(s.front()) != std::string_view::npos)
    text.insert(0, 1, '\'');  // a formula to a spreadsheet: OWASP's CSV-injection advice
  if (text.find_first_of(",\"") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string render_json(const ReportData& r) {
  std::string out;
  for (const FleetHour& h : r.hours) out += hour_json(h, r) + "\n";
  return out;
}

std::string render_csv(const ReportData& r) {
  // The fixed columns are the hourly budgets' (as before resources were
  // kept); each per-minute resource seen gets two columns after the lanes.
  const auto lanes = all_lanes(r.hours);
  const auto resources = window_resources(r.hours);
  const auto economy = economy_lanes(r.hours);
  std::string out = "hour_ending,requests,replicas,partial,lowest_remaining,lowest_at,limit,over_limit,exhausted_at";
  for (const auto& l : lanes) out += "," + csv_field("lane:" + l);
  for (const auto& name : resources) out += "," + csv_field("lowest:" + name) + "," + csv_field("limited_at:" + name);
  out += economy_csv_head(economy);
  out += "\n";
  // A long log has thousands of rows: one buffer, written in place (the
  // realistic 1 GB bench: 9,660 rows, a fifth of the render was regrowing it).
  out.reserve(out.size() + r.hours.size() * (100 + 12 * lanes.size() + 40 * resources.size()));
  auto to = std::back_inserter(out);
  for (const FleetHour& h : r.hours) {
    const BudgetView* low = h.lowest_budget();
    bool over = false;
    for (const auto& [key, b] : h.budgets) over = over || b.over();
    auto limit = hour_limit(h);
    auto first = h.first_exhausted_at();
    fmt::format_to(to, "{},{},{},{},", hour_text(h.hour_ending), h.requests, h.sources.size(), h.partial());
    if (low)
      fmt::format_to(to, "{},{}", *low->lowest, instant_text(low->lowest_at));
    else
      out += ',';
    out += ',';
    if (limit) fmt::format_to(to, "{}", *limit);
    fmt::format_to(to, ",{},", over);
    if (first) out += instant_text(*first);
    for (const auto& l : lanes) {
      auto it = h.lanes.find(l);
      fmt::format_to(to, ",{}", it == h.lanes.end() ? 0 : it->second);
    }
    const auto summaries = resources.empty() ? decltype(resource_summaries(h)){} : resource_summaries(h);
    for (const auto& name : resources) {
      const auto s = summaries.find(name);
      out += ',';
      if (s != summaries.end() && s->second.lowest) fmt::format_to(to, "{}", *s->second.lowest);
      out += ',';
      if (s != summaries.end() && s->second.limited_at) out += instant_text(*s->second.limited_at);
    }
    if (!economy.empty()) out += economy_csv_cells(h, economy);
    out += '\n';
  }
  return out;
}

}  // namespace forgemeter::report
