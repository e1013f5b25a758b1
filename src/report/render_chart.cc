// The inline SVG chart: per hour a bar of the fleet's REST requests stacked by
// lane, held against the core budget's line, and a hatched GraphQL bar beside
// it (GraphQL spends points of its own budget, so a GraphQL-heavy hour must
// not look over core); exhausted hours marked, per-minute limits marked mildly.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "meter/civil.h"
#include "report/render.h"

namespace forgemeter::report {

using meter::clock_text;
using meter::hour_text;

namespace {

constexpr const char* kPalette[] = {"#9aa5b1", "#2f6fdf", "#e0892b", "#2a9d6f", "#8e5bd0",
                                    "#c94f7c", "#3fa9c9", "#b5a22a", "#6b7f2a", "#7a4b2a"};

// A round axis step for a range: 1, 2 or 5 times a power of ten.
double nice_step(double range, int ticks) {
  double raw = range / ticks;
  double mag = std::pow(10.0, std::floor(std::log10(std::max(raw, 1.0))));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

std::string lane_color(std::size_t index) { return kPalette[index % std::size(kPalette)]; }

}  // namespace

std::string render_svg_chart(const ReportData& r) {
  const auto lanes = all_lanes(r.hours);
  const bool any_graphql =
      std::any_of(r.hours.begin(), r.hours.end(), [](const FleetHour& h) { return h.graphql_requests() > 0; });
  const std::size_t legend_items = lanes.size() + (any_graphql ? 1 : 0);
  const double n_hours = static_cast<double>(std::max<std::size_t>(r.hours.size(), 1));
  const double left = 70, top = 30, plot_h = 300;
  const double plot_w = std::max(std::clamp(640.0 / n_hours, 8.0, 48.0) * 1.35 * n_hours, 360.0);
  const double slot = plot_w / n_hours, bar_w = std::min(slot / 1.35, 90.0);
  // With GraphQL in the report, each hour's slot holds the REST bar (held
  // against the core line) and a narrower GraphQL bar beside it.
  const double rest_w = any_graphql ? bar_w * 0.66 : bar_w, gql_gap = bar_w * 0.06, gql_w = bar_w - rest_w - gql_gap;
  const double width = left + plot_w + 20;
  // Legend entries 170 px apart, as many a row as the chart is wide.
  const std::size_t per_row = std::max<std::size_t>(1, static_cast<std::size_t>((plot_w + 10) / 170));
  const std::size_t legend_rows = (legend_items + per_row - 1) / per_row;
  const double height = top + plot_h + 70 + 22.0 * static_cast<double>(legend_rows);

  double peak = 1;
  for (const FleetHour& h : r.hours) {
    peak = std::max({peak, static_cast<double>(h.rest_requests()), static_cast<double>(h.graphql_requests())});
    if (auto l = hour_limit(h)) peak = std::max(peak, static_cast<double>(*l));
  }
  double step = nice_step(peak * 1.08, 5);
  double y_max = std::ceil(peak * 1.08 / step) * step;
  auto y = [&](double v) { return top + plot_h - v / y_max * plot_h; };

  std::string s = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{0:.0f}" height="{1:.0f}" viewBox="0 0 {0:.0f} {1:.0f}" role="img" aria-label="fleet requests per hour by lane">)"
      "\n<rect x=\"0\" y=\"0\" width=\"{0:.0f}\" height=\"{1:.0f}\" fill=\"#ffffff\"/>\n",
      width, height);
  if (any_graphql)
    s +=
        R"svg(<defs><pattern id="fm-graphql-hatch" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)"><rect width="6" height="6" fill="#ece6f5"/><line x1="0" y1="0" x2="0" y2="6" stroke="#5b3f8c" stroke-width="2.5"/></pattern></defs>)svg"
        "\n";
  for (double v = 0; v <= y_max + step / 2; v += step)
    s += fmt::format(
        R"(<line class="grid" x1="{:.1f}" x2="{:.1f}" y1="{:.1f}" y2="{:.1f}" stroke="#e5e7eb"/><text x="{:.1f}" y="{:.1f}" font-size="11" text-anchor="end" fill="#555">{:.0f}</text>)"
        "\n",
        left, left + plot_w, y(v), y(v), left - 6, y(v) + 4, v);

  std::string budget_path;
  std::size_t label_every = std::max<std::size_t>(1, r.hours.size() / 12);
  for (std::size_t i = 0; i < r.hours.size(); ++i) {
    const FleetHour& h = r.hours[i];
    const double x = left + slot * static_cast<double>(i) + (slot - bar_w) / 2;
    const std::uint64_t rest = h.rest_requests(), graphql = h.graphql_requests();
    const auto limit = hour_limit(h);
    // The data attributes say what the drawing compares: REST requests with the core limit.
    std::string limit_attrs =
        limit ? fmt::format(R"( data-core-limit="{}" data-limit-y="{:.1f}")", *limit, y(static_cast<double>(*limit)))
              : "";
    s += fmt::format(
        R"(<g class="bar" data-hour="{}" data-requests="{}" data-rest="{}" data-graphql="{}" data-rest-y="{:.1f}"{}><title>{}: {} requests ({} REST, {} GraphQL){}</title>)",
        hour_text(h.hour_ending), h.requests, rest, graphql, y(static_cast<double>(rest)), limit_attrs,
        hour_text(h.hour_ending), h.requests, rest, graphql, h.partial() ? " (partial hour)" : "");
    double acc = 0;
    for (std::size_t li = 0; li < lanes.size(); ++li) {
      auto all = h.lanes.find(lanes[li]);
      auto gql = h.graphql_lanes.find(lanes[li]);
      const std::uint64_t n =
          (all == h.lanes.end() ? 0 : all->second) - (gql == h.graphql_lanes.end() ? 0 : gql->second);
      if (n == 0) continue;
      double v = static_cast<double>(n);
      s += fmt::format(
          R"(<rect class="seg" data-lane="{}" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}"{}><title>{} {} REST</title></rect>)",
          html_escape(lanes[li]), x, y(acc + v), rest_w, std::max(y(acc) - y(acc + v), 0.5), lane_color(li),
          h.partial() ? R"( fill-opacity="0.6")" : "", html_escape(lanes[li]), n);
      acc += v;
    }
    if (graphql > 0) {
      std::string by_lane;
      for (const auto& [lane, n] : h.graphql_lanes)
        by_lane += fmt::format("{}{}={}", by_lane.empty() ? "" : ", ", lane, n);
      const double g = static_cast<double>(graphql);
      s += fmt::format(
          R"svg(<rect class="graphql" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="url(#fm-graphql-hatch)" stroke="#5b3f8c" stroke-width="0.8"{}><title>{} GraphQL requests ({}): points of the GraphQL budget, not held against the core line</title></rect>)svg",
          x + rest_w + gql_gap, y(g), gql_w, std::max(y(0) - y(g), 0.5), h.partial() ? R"( fill-opacity="0.6")" : "",
          graphql, html_escape(by_lane));
    }
    s += "</g>\n";
    if (i % label_every == 0)
      s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="11" text-anchor="middle" fill="#333">{}</text>)"
                       "\n",
                       x + bar_w / 2, top + plot_h + 16, hour_text(h.hour_ending).substr(11, 5) + "Z");
    if (limit) {
      double x0 = left + slot * static_cast<double>(i), x1 = x0 + slot;
      budget_path += fmt::format("{}{:.1f},{:.1f} L{:.1f},{:.1f} ", budget_path.empty() ? "M" : "L", x0,
                                 y(static_cast<double>(*limit)), x1, y(static_cast<double>(*limit)));
    }
    const double cx = x + bar_w / 2, ty = std::max(y(static_cast<double>(std::max(rest, graphql))) - 8, top - 14);
    if (h.exhausted()) {
      auto first = h.first_exhausted_at();
      s += fmt::format(
          R"(<g class="exhausted"><title>budget exhausted{}</title><polygon points="{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}" fill="#d62828"/></g>)"
          "\n",
          first ? " at " + clock_text(*first) : std::string(" (over the limit)"), cx - 6, ty - 10, cx + 6, ty - 10, cx,
          ty);
    } else if (h.limited()) {  // a per-minute bucket ran out: worth a look, not an alarm
      s += fmt::format(
          R"(<g class="limited"><title>{}: a per-minute limit, not the hour's budget</title><circle cx="{:.1f}" cy="{:.1f}" r="5" fill="none" stroke="#c77c02" stroke-width="2"/></g>)"
          "\n",
          html_escape(join(budget_notes(h), "; ")), cx, ty - 6);
    }
  }
  if (!budget_path.empty())
    s += fmt::format(
        R"(<path class="budget" d="{}" fill="none" stroke="#d62828" stroke-width="2" stroke-dasharray="6 4"><title>installation core budget (REST requests)</title></path>)"
        "\n",
        budget_path);
  s += fmt::format(
      R"(<line x1="{0:.1f}" x2="{0:.1f}" y1="{1:.1f}" y2="{2:.1f}" stroke="#333"/><line x1="{0:.1f}" x2="{3:.1f}" y1="{2:.1f}" y2="{2:.1f}" stroke="#333"/>)"
      "\n",
      left, top, top + plot_h, left + plot_w);
  const double ly = top + plot_h + 40;
  for (std::size_t li = 0; li < legend_items; ++li) {
    const std::size_t column = li % per_row, legend_row = li / per_row;
    const double lx = left + static_cast<double>(column) * 170, row = ly + 22.0 * static_cast<double>(legend_row);
    const bool gql = li == lanes.size();
    s += fmt::format(
        R"(<rect x="{:.1f}" y="{:.1f}" width="12" height="12" fill="{}"{}/><text x="{:.1f}" y="{:.1f}" font-size="12" fill="#222">{}</text>)"
        "\n",
        lx, row, gql ? "url(#fm-graphql-hatch)" : lane_color(li), gql ? R"( stroke="#5b3f8c" stroke-width="0.8")" : "",
        lx + 17, row + 11, gql ? "GraphQL (own budget)" : html_escape(lanes[li]));
  }
  return s + "</svg>\n";
}

}  // namespace forgemeter::report
