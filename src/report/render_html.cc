// The self-contained HTML page: no network, no scripts; the chart is inline SVG.
#include <fmt/format.h>

#include "meter/civil.h"
#include "report/render_views.h"

namespace forgemeter::report {

using meter::clock_text;
using meter::hour_text;

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

std::string cell(const std::string& text) { return text.empty() ? "–" : html_escape(text); }

// The row's mark: red for an exhausted hour, amber for one where only a
// per-minute resource (search, …) ran out.
const char* row_class(const FleetHour& h) { return h.exhausted() ? " class=exh" : h.limited() ? " class=lim" : ""; }

std::string hour_rows(const ReportData& r) {
  std::string rows;
  for (const FleetHour& h : r.hours) {
    auto limit = hour_limit(h);
    std::string lanes;
    for (const auto& [lane, n] : h.lanes) lanes += fmt::format("{}{}={}", lanes.empty() ? "" : ", ", lane, n);
    rows += fmt::format(
        "<tr{}><td>{}{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td>{}</td><td class=n>{}</td><td "
        "class=n>{}</td><td>{}</td></tr>\n",
        row_class(h), hour_text(h.hour_ending), h.partial() ? " <small>(partial)</small>" : "", h.requests,
        h.graphql_requests(), h.sources.size(), html_escape(lanes), cell(lowest_text(h)),
        limit ? fmt::to_string(*limit) : "–", html_escape(join(budget_notes(h), "; ")));
  }
  return rows;
}

// Every budget of every hour, resources named: what the notes summarise.
std::string budget_rows(const ReportData& r) {
  std::string rows;
  for (const FleetHour& h : r.hours)
    for (const auto& [key, b] : h.budgets) {
      const char* mark = b.exhausted() ? " class=exh" : b.limited() ? " class=lim" : "";
      std::vector<std::string> state;
      if (b.over()) state.push_back(fmt::format("over by {}", b.charged() - *b.limit));
      if (b.exhausted_at) state.push_back("out at " + clock_text(*b.exhausted_at));
      if (b.limited_at) state.push_back("limited at " + clock_text(*b.limited_at));
      rows += fmt::format(
          "<tr{}><td>{}</td><td>{} {}</td><td class=n>{}</td><td>{}</td><td>{}</td><td "
          "class=n>{}</td><td>{}</td><td>{}</td><td class=n>{}</td><td>{}</td></tr>\n",
          mark, hour_text(h.hour_ending), html_escape(key.host), to_string(key.api), key.installation,
          html_escape(key.resource_name()), b.hourly() ? "hour" : "minute",
          key.credited() ? fmt::to_string(b.requests) : "–",
          b.lowest ? fmt::format("{} at {}", *b.lowest, clock_text(b.lowest_at)) : "–",
          cell(b.lowest ? b.lowest_source : ""), b.limit ? fmt::to_string(*b.limit) : "–",
          html_escape(join(state, "; ")));
    }
  return rows;
}

}  // namespace

std::string render_html(const ReportData& r) {
  std::uint64_t total = 0;
  std::size_t exhausted = 0, limited = 0;
  for (const FleetHour& h : r.hours) {
    total += h.requests;
    exhausted += h.exhausted() ? 1 : 0;
    limited += !h.exhausted() && h.limited() ? 1 : 0;
  }
  std::string skipped = render_skipped(r.stats);
  return fmt::format(R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>forgemeter fleet report</title>
<style>
body{{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1f2933;background:#fff}}
h1{{font-size:20px;margin:0 0 4px}} p.sum{{margin:0 0 16px;color:#52606d}}
table{{border-collapse:collapse;font-size:13px;margin-top:16px}}
th,td{{padding:4px 10px;border-bottom:1px solid #e4e7eb;text-align:left}} td:first-child{{white-space:nowrap}} td.n{{text-align:right;font-variant-numeric:tabular-nums}}
tr.exh td{{background:#fdecea}} tr.lim td{{background:#fff6e0}} pre{{background:#f5f7fa;padding:8px;font-size:12px}}
h2{{font-size:15px;margin:24px 0 0}} .key{{font-size:12px;color:#52606d}} .key b{{color:#d62828}} .key i{{color:#c77c02;font-style:normal}}
</style></head><body>
<h1>Fleet forge requests per hour</h1>
<p class="sum">{} hours, {} requests, {} replicas' logs, {} exhausted hour{}{}.</p>
<p class="key">Bars: the fleet's REST requests per hour, stacked by lane (dashed outline: partial hour; shaded slot: an hour without lines); beside them, hatched, its GraphQL requests (GraphQL spends points of its own budget, so they are not held against the line). <b>- - -</b> the installation's core (REST) budget; <b style="color:#334e68">&middot;&middot;&middot;</b> its GraphQL budget (points). <b>&#9660;</b> an hourly budget ran out (or the fleet went over core). <i>&#9675;</i> only a per-minute resource (search, …) ran out: limited for a minute, not the hour.</p>
{}
{}{}<table><thead><tr><th>hour ending</th><th>requests</th><th>of which GraphQL</th><th>replicas</th><th>lanes</th><th>lowest remaining (hourly)</th><th>core limit</th><th>budgets</th></tr></thead>
<tbody>
{}</tbody></table>
<h2>Budgets by installation and resource</h2>
<table><thead><tr><th>hour ending</th><th>host, api</th><th>installation</th><th>resource</th><th>window</th><th>requests</th><th>lowest remaining</th><th>seen by</th><th>limit</th><th>state</th></tr></thead>
<tbody>
{}</tbody></table>
{}{}
</body></html>
)",
                     r.hours.size(), total, r.sources.size(), exhausted, exhausted == 1 ? "" : "s",
                     limited == 0 ? std::string() : fmt::format(", {} limited only by a per-minute resource", limited),
                     render_svg_chart(r), projection_html(r), replica_html(r), hour_rows(r), budget_rows(r),
                     economy_html(r), skipped.empty() ? std::string() : "<pre>" + html_escape(skipped) + "</pre>");
}

}  // namespace forgemeter::report
