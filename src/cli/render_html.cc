// The self-contained HTML page: no network, no scripts; the chart is inline SVG.
#include <fmt/format.h>

#include "cli/render.h"
#include "cli/timefmt.h"

namespace forgemeter::cli {

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

std::string hour_rows(const ReportData& r) {
  std::string rows;
  for (const FleetHour& h : r.hours) {
    const BudgetView* low = h.lowest_budget();
    auto limit = hour_limit(h);
    auto first = h.first_exhausted_at();
    std::string lanes;
    for (const auto& [lane, n] : h.lanes) lanes += fmt::format("{}{}={}", lanes.empty() ? "" : ", ", lane, n);
    rows += fmt::format(
        "<tr{}><td>{}{}</td><td class=n>{}</td><td class=n>{}</td><td>{}</td><td class=n>{}</td><td class=n>{}</td><td>{}</td></tr>\n",
        h.exhausted() ? " class=exh" : "", hour_text(h.hour_ending), h.partial() ? " <small>(partial)</small>" : "",
        h.requests, h.sources.size(), html_escape(lanes),
        low ? fmt::format("{} at {}", *low->lowest, clock_text(low->lowest_at)) : "–",
        limit ? fmt::to_string(*limit) : "–",
        h.exhausted() ? (first ? "exhausted at " + clock_text(*first) : std::string("over the limit")) : "");
  }
  return rows;
}

}  // namespace

std::string render_html(const ReportData& r) {
  std::uint64_t total = 0;
  std::size_t exhausted = 0;
  for (const FleetHour& h : r.hours) {
    total += h.requests;
    exhausted += h.exhausted() ? 1 : 0;
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
th,td{{padding:4px 10px;border-bottom:1px solid #e4e7eb;text-align:left}} td.n{{text-align:right;font-variant-numeric:tabular-nums}}
tr.exh td{{background:#fdecea}} pre{{background:#f5f7fa;padding:8px;font-size:12px}}
.key{{font-size:12px;color:#52606d}} .key b{{color:#d62828}}
</style></head><body>
<h1>Fleet forge requests per hour</h1>
<p class="sum">{} hours, {} requests, {} replicas' logs, {} exhausted hour{}.</p>
<p class="key">Bars: the fleet's requests per hour, stacked by lane (paler: partial hour). <b>- - -</b> the installation budget. <b>&#9660;</b> the budget ran out (or the fleet went over it).</p>
{}
<table><thead><tr><th>hour ending</th><th>requests</th><th>replicas</th><th>lanes</th><th>lowest remaining</th><th>limit</th><th>budget</th></tr></thead>
<tbody>
{}</tbody></table>
{}
</body></html>
)",
                     r.hours.size(), total, r.sources.size(), exhausted, exhausted == 1 ? "" : "s",
                     render_svg_chart(r), hour_rows(r),
                     skipped.empty() ? std::string() : "<pre>" + html_escape(skipped) + "</pre>");
}

}  // namespace forgemeter::cli
