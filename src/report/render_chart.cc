// The inline SVG chart: per hour a bar of the fleet's REST requests stacked by
// lane, held against the core budget's line, and a hatched GraphQL bar beside
// it (GraphQL spends points of its own budget, so a GraphQL-heavy hour must
// not look over core); exhausted hours marked, per-minute limits marked mildly,
// partial hours outlined (never paled: a partial hour can be the worst one).
// Hours without lines keep their place on the axis (chart_axis.cc); under the
// bars, every resource's lowest remaining (chart_budgets.cc).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "meter/civil.h"
#include "report/chart.h"
#include "report/render.h"

namespace forgemeter::report {

using meter::clock_text;
using meter::hour_text;

namespace {

// A round axis step for a range: 1, 2 or 5 times a power of ten.
double nice_step(double range, int ticks) {
  double raw = range / ticks;
  double mag = std::pow(10.0, std::floor(std::log10(std::max(raw, 1.0))));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

struct Layout {
  ChartFrame f;
  double bar_w = 0, rest_w = 0, gql_gap = 0, gql_w = 0;
  double bar_x(std::size_t slot) const { return f.x(slot) + (f.slot - bar_w) / 2; }
};

Layout layout(const ReportData& r, std::size_t slots, bool any_graphql) {
  Layout l;
  const double n = static_cast<double>(std::max<std::size_t>(slots, 1));
  l.f.left = 70;
  l.f.top = 30;
  l.f.plot_h = 300;
  l.f.plot_w = std::max(std::clamp(640.0 / n, 8.0, 48.0) * 1.35 * n, 560.0);
  l.f.slot = l.f.plot_w / n;
  l.bar_w = std::min(l.f.slot / 1.35, 90.0);
  // With GraphQL in the report, each hour's slot holds the REST bar (held
  // against the core line) and a narrower GraphQL bar beside it.
  l.rest_w = any_graphql ? l.bar_w * 0.66 : l.bar_w;
  l.gql_gap = l.bar_w * 0.06;
  l.gql_w = l.bar_w - l.rest_w - l.gql_gap;
  double peak = 1;
  for (const FleetHour& h : r.hours)
    peak = std::max({peak, static_cast<double>(h.rest_requests()), static_cast<double>(h.graphql_requests()),
                     static_cast<double>(highest_drawn_limit(h))});
  const double step = nice_step(peak * 1.08, 5);
  l.f.y_max = std::ceil(peak * 1.08 / step) * step;
  return l;
}

std::string partial_outline(const ReportData& r, const FleetHour& h, const Layout& l, double x, double top) {
  std::string who;
  for (std::size_t i = 0; i < h.partial_sources.size() && i < 3; ++i)
    who += (i ? ", " : "") + r.sources.at(h.partial_sources[i]);
  if (h.partial_sources.size() > 3) who += ", …";
  const double bottom = l.f.y(0);
  return fmt::format(
      R"(<rect class="partial" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="none" stroke="#52606d" stroke-width="1.5" stroke-dasharray="4 3"><title>partial hour: counted over part of it by {}</title></rect>)",
      x - 3, top - 3, l.bar_w + 6, bottom - top + 3, html_escape(who));
}

std::string marks(const FleetHour& h, double cx, double ty) {
  if (h.exhausted()) {
    auto first = h.first_exhausted_at();
    return fmt::format(
        R"(<g class="exhausted"><title>budget exhausted{}</title><polygon points="{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}" fill="#d62828"/></g>)"
        "\n",
        first ? " at " + clock_text(*first) : std::string(" (over the limit)"), cx - 6, ty - 10, cx + 6, ty - 10, cx,
        ty);
  }
  if (h.limited())  // a per-minute bucket ran out: worth a look, not an alarm
    return fmt::format(
        R"(<g class="limited"><title>{}: a per-minute limit, not the hour's budget</title><circle cx="{:.1f}" cy="{:.1f}" r="5" fill="none" stroke="#c77c02" stroke-width="2"/></g>)"
        "\n",
        html_escape(join(budget_notes(h), "; ")), cx, ty - 6);
  return {};
}

// One hour's bar: REST segments by lane, the GraphQL bar, the partial outline.
std::string bar(const ReportData& r, const FleetHour& h, std::size_t slot, const Layout& l,
                const std::vector<std::string>& lanes) {
  const double x = l.bar_x(slot);
  const std::uint64_t rest = h.rest_requests(), graphql = h.graphql_requests();
  const auto limit = hour_limit(h);
  const std::string hour = hour_text(h.hour_ending);
  // The data attributes say what the drawing compares: REST requests with the core limit.
  std::string limit_attrs =
      limit ? fmt::format(R"( data-core-limit="{}" data-limit-y="{:.1f}")", *limit, l.f.y(static_cast<double>(*limit)))
            : "";
  std::string s = fmt::format(
      R"(<g class="bar" data-hour="{}" data-requests="{}" data-rest="{}" data-graphql="{}" data-rest-y="{:.2f}" data-slot="{}" data-partial="{}"{}><title>{}: {} requests ({} REST, {} GraphQL){}</title>)",
      hour, h.requests, rest, graphql, l.f.y(static_cast<double>(rest)), slot, h.partial(), limit_attrs, hour,
      h.requests, rest, graphql, h.partial() ? " (partial hour)" : "");
  const double top = l.f.y(static_cast<double>(std::max(rest, graphql)));
  if (h.partial()) s += partial_outline(r, h, l, x, top);
  double acc = 0;
  for (const std::string& lane : lanes) {
    auto all = h.lanes.find(lane);
    auto gql = h.graphql_lanes.find(lane);
    const std::uint64_t n = (all == h.lanes.end() ? 0 : all->second) - (gql == h.graphql_lanes.end() ? 0 : gql->second);
    if (n == 0) continue;
    const double v = static_cast<double>(n);
    s += fmt::format(
        R"(<rect class="seg" data-hour="{}" data-lane="{}" data-count="{}" x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}" fill="{}" stroke="#ffffff" stroke-width="0.5"><title>{} {} REST</title></rect>)",
        hour, html_escape(lane), n, x, l.f.y(acc + v), l.rest_w, l.f.y(acc) - l.f.y(acc + v), lane_color(lane),
        html_escape(lane), n);
    acc += v;
  }
  if (graphql > 0) {
    std::string by_lane;
    for (const auto& [lane, n] : h.graphql_lanes)
      by_lane += fmt::format("{}{}={}", by_lane.empty() ? "" : ", ", lane, n);
    const double g = static_cast<double>(graphql);
    s += fmt::format(
        R"svg(<rect class="graphql" data-hour="{}" data-count="{}" x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}" fill="url(#fm-graphql-hatch)" stroke="#5b3f8c" stroke-width="0.8"><title>{} GraphQL requests ({}): points of the GraphQL budget, not held against the core line</title></rect>)svg",
        hour, graphql, x + l.rest_w + l.gql_gap, l.f.y(g), l.gql_w, l.f.y(0) - l.f.y(g), graphql, html_escape(by_lane));
  }
  return s + "</g>\n";
}

// The exhausted or limited mark over an hour's bar.
std::string hour_marks(const FleetHour& h, std::size_t slot, const Layout& l) {
  const double top = l.f.y(static_cast<double>(std::max(h.rest_requests(), h.graphql_requests())));
  return marks(h, l.bar_x(slot) + l.bar_w / 2, std::max(top - 8, l.f.top - 14));
}

// A slot with no bar: an hour without lines (faintly shaded), or a cut long gap.
std::string gap_slot(const ChartSlot& s, std::size_t slot, const Layout& l) {
  const double x = l.f.x(slot);
  if (s.kind == ChartSlot::Kind::empty)
    return fmt::format(
        R"(<rect class="empty" data-slot="{}" data-hour="{}" x="{:.2f}" y="{:.1f}" width="{:.2f}" height="{:.1f}" fill="#f5f6f8"><title>{}: no meter lines</title></rect>)"
        "\n",
        slot, hour_text(s.hour_ending), x, l.f.top, l.f.slot, l.f.plot_h, hour_text(s.hour_ending));
  const Instant until = s.hour_ending + std::chrono::hours(s.hours_cut - 1);
  return fmt::format(
      R"svg(<g class="cut" data-slot="{}" data-hours="{}"><title>{} hours without meter lines ({} to {}), not drawn to scale</title><rect x="{:.2f}" y="{:.1f}" width="{:.2f}" height="{:.1f}" fill="url(#fm-cut-hatch)"/><text x="{:.1f}" y="{:.1f}" font-size="11" text-anchor="middle" fill="#52606d">{}d</text></g>)svg"
      "\n",
      slot, s.hours_cut, s.hours_cut, hour_text(s.hour_ending), hour_text(until), x, l.f.top, l.f.slot, l.f.plot_h,
      x + l.f.slot / 2, l.f.top + l.f.plot_h / 2, (s.hours_cut + 23) / 24);
}

std::string axis_labels(const std::vector<ChartSlot>& slots, const Layout& l) {
  const auto labels = slot_labels(slots, l.f.slot);
  const double y = l.f.y(0) + 16;
  // A bar stands for the hour that ends at its label, as in the table; said
  // under the labels (and their dates), where no label reaches.
  const bool dated =
      std::any_of(labels.begin(), labels.end(), [](const SlotLabel& label) { return !label.date.empty(); });
  std::string s =
      fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="10" text-anchor="end" fill="#52606d">hour ending</text>)"
                  "\n",
                  l.f.left - 4, y + (dated ? 26 : 13));
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i].empty()) continue;
    const double x = l.f.x(i) + l.f.slot / 2;
    s += fmt::format(
        R"(<text class="hour-label" x="{:.1f}" y="{:.1f}" font-size="11" text-anchor="middle" fill="#333">)", x, y);
    s += labels[i].time;
    if (!labels[i].date.empty())
      s += fmt::format(R"(<tspan x="{:.1f}" dy="13" fill="#52606d">{}</tspan>)", x, labels[i].date);
    s += "</text>\n";
  }
  return s;
}

struct LegendItem {
  std::string fill, extra, text;
};

std::string legend(const std::vector<LegendItem>& items, const Layout& l, double ly, std::size_t per_row) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::size_t column = i % per_row, row_index = i / per_row;  // whole rows
    const double lx = l.f.left + static_cast<double>(column) * 170, row = ly + 22.0 * static_cast<double>(row_index);
    s += fmt::format(
        R"(<rect x="{:.1f}" y="{:.1f}" width="12" height="12" fill="{}"{}/><text x="{:.1f}" y="{:.1f}" font-size="12" fill="#222">{}</text>)"
        "\n",
        lx, row, items[i].fill, items[i].extra, lx + 17, row + 11, items[i].text);
  }
  return s;
}

std::vector<LegendItem> legend_items(const ReportData& r, const std::vector<std::string>& lanes, bool any_graphql) {
  std::vector<LegendItem> items;
  items.reserve(lanes.size() + 2);
  for (const std::string& lane : lanes)
    items.push_back({lane_color(lane), R"( data-legend-lane=")" + html_escape(lane) + "\"", html_escape(lane)});
  if (any_graphql)
    items.push_back({"url(#fm-graphql-hatch)", R"( stroke="#5b3f8c" stroke-width="0.8")", "GraphQL (own budget)"});
  if (std::any_of(r.hours.begin(), r.hours.end(), [](const FleetHour& h) { return h.partial(); }))
    items.push_back({"none", R"( stroke="#52606d" stroke-width="1.5" stroke-dasharray="4 3")", "partial hour"});
  return items;
}

}  // namespace

std::string render_svg_chart(const ReportData& r) {
  const auto slots = chart_slots(r.hours);
  const auto lanes = all_lanes(r.hours);
  const bool any_graphql =
      std::any_of(r.hours.begin(), r.hours.end(), [](const FleetHour& h) { return h.graphql_requests() > 0; });
  const Layout l = layout(r, slots.size(), any_graphql);
  const auto items = legend_items(r, lanes, any_graphql);
  // Legend entries 170 px apart, as many a row as the chart is wide.
  const std::size_t per_row = std::max<std::size_t>(1, static_cast<std::size_t>((l.f.plot_w + 10) / 170));
  const double legend_y = l.f.top + l.f.plot_h + 50;
  const std::size_t legend_rows = (items.size() + per_row - 1) / per_row;  // whole rows, rounded up
  const double panel_top = legend_y + 22.0 * static_cast<double>(legend_rows) + 6;
  double panel_h = 0;
  const std::string panel = budget_left_panel(r.hours, slots, l.f, panel_top, panel_h);
  const double width = l.f.left + l.f.plot_w + 20, height = panel_top + panel_h + 10;

  std::string s = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{0:.0f}" height="{1:.0f}" viewBox="0 0 {0:.0f} {1:.0f}" role="img" aria-label="fleet requests per hour by lane">)"
      "\n<rect x=\"0\" y=\"0\" width=\"{0:.0f}\" height=\"{1:.0f}\" fill=\"#ffffff\"/>\n",
      width, height);
  s +=
      R"svg(<defs><pattern id="fm-graphql-hatch" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)"><rect width="6" height="6" fill="#ece6f5"/><line x1="0" y1="0" x2="0" y2="6" stroke="#5b3f8c" stroke-width="2.5"/></pattern>)svg"
      R"svg(<pattern id="fm-cut-hatch" patternUnits="userSpaceOnUse" width="8" height="8" patternTransform="rotate(-45)"><rect width="8" height="8" fill="#f5f6f8"/><line x1="0" y1="0" x2="0" y2="8" stroke="#cbd2d9" stroke-width="2"/></pattern></defs>)svg"
      "\n";
  // Gaps under the grid, bars over it, marks over the budget lines.
  std::string gaps, bars, over;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (slots[i].kind != ChartSlot::Kind::hour) {
      gaps += gap_slot(slots[i], i, l);
      continue;
    }
    bars += bar(r, r.hours[slots[i].hour], i, l, lanes);
    over += hour_marks(r.hours[slots[i].hour], i, l);
  }
  s += gaps;
  const double step = nice_step(l.f.y_max, 5);
  for (double v = 0; v <= l.f.y_max + step / 2; v += step)
    s += fmt::format(
        R"(<line class="grid" x1="{:.1f}" x2="{:.1f}" y1="{:.1f}" y2="{:.1f}" stroke="#e5e7eb"/><text x="{:.1f}" y="{:.1f}" font-size="11" text-anchor="end" fill="#555">{:.0f}</text>)"
        "\n",
        l.f.left, l.f.left + l.f.plot_w, l.f.y(v), l.f.y(v), l.f.left - 6, l.f.y(v) + 4, v);
  s += bars;
  s += budget_limit_lines(r.hours, slots, l.f) + over;
  s += axis_labels(slots, l);
  s += fmt::format(
      R"(<line x1="{0:.1f}" x2="{0:.1f}" y1="{1:.1f}" y2="{2:.1f}" stroke="#333"/><line x1="{0:.1f}" x2="{3:.1f}" y1="{2:.1f}" y2="{2:.1f}" stroke="#333"/>)"
      "\n",
      l.f.left, l.f.top, l.f.top + l.f.plot_h, l.f.left + l.f.plot_w);
  s += legend(items, l, legend_y, per_row);
  return s + panel + "</svg>\n";
}

}  // namespace forgemeter::report
