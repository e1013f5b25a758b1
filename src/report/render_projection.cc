// When will it run out: the hour in progress projected, and the startup
// bursts, as the table, JSON and HTML say them (the model: projection.h).
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/duration_text.h"
#include "core/terminal_text.h"
#include "meter/civil.h"
#include "report/projection.h"
#include "report/render_views.h"

namespace forgemeter::report {

using core_detail::terminal_text;
using meter::clock_text;
using meter::hour_text;

namespace {

// The page's red for what ran out, inline: the page's style sheet belongs to the chart.
constexpr const char* kRed = R"( style="color:#b3261e")";

std::string span(std::chrono::seconds d) { return core_detail::duration_text(d); }

// "at this rate installation 101 runs out at 14:41:00Z, 19m before its reset at 15:00:00Z".
std::string projection_sentence(const Projection& p) {
  const std::string who = budget_label(p.key);
  if (p.out) return fmt::format("{} ran out at {}", who, clock_text(p.at));
  if (!p.no_projection.empty()) return fmt::format("no projection for {}: {}", who, p.no_projection);
  const std::string rate =
      fmt::format(" ({} {}: spent {} of {} in {}, {:.1f}/min; {} left at {})", p.key.host, to_string(p.key.api),
                  p.spent, *p.limit, span(p.elapsed), p.per_minute(), *p.remaining, clock_text(p.at));
  if (p.runs_out_at)
    return fmt::format("at this rate {} runs out at {}, {} before its reset at {}", who, clock_text(*p.runs_out_at),
                       span(*p.resets - *p.runs_out_at), clock_text(*p.resets)) +
           rate;
  return fmt::format("at this rate {} lasts to its reset at {} with {} left", who, clock_text(*p.resets),
                     *p.left_at_reset) +
         rate;
}

std::string burst_sentence(const Burst& b) {
  return fmt::format("{} ran out at {}, {} after its reset at {} (startup burst)", budget_label(b.key),
                     clock_text(b.out_at), span(b.out_at - b.window_start), clock_text(b.window_start));
}

// What the sections list: the projections of the hour in progress, the bursts of every hour.
struct Findings {
  const FleetHour* in_progress = nullptr;
  std::vector<Projection> projections;
  std::vector<std::pair<const FleetHour*, Burst>> bursts;
};

Findings findings(const ReportData& r) {
  Findings f;
  f.in_progress = hour_in_progress(r.hours, r.now);
  if (f.in_progress != nullptr) f.projections = project(*f.in_progress, *r.now);
  for (const FleetHour& h : r.hours)
    for (Burst& b : startup_bursts(h, r.burst_within)) f.bursts.emplace_back(&h, std::move(b));
  return f;
}

std::string key_json(const BudgetKey& key) {
  return fmt::format(R"("host":{},"api":"{}","installation":{},"resource":{})", json_quote(key.host),
                     to_string(key.api), key.installation, json_quote(key.resource_name()));
}

std::string projection_object(const Projection& p) {
  const bool rate = p.elapsed.count() > 0;
  return fmt::format(
      R"({{{},"remaining":{},"at":{},"limit":{},"resets":{},"spent":{},"elapsed_seconds":{},"per_minute":{},)"
      R"("out":{},"runs_out_at":{},"left_at_reset":{},"no_projection":{}}})",
      key_json(p.key), opt_num(p.remaining), p.remaining ? json_quote(meter::instant_text(p.at)) : "null",
      opt_num(p.limit), opt_time(p.resets), rate ? fmt::to_string(p.spent) : "null",
      rate ? fmt::to_string(p.elapsed.count()) : "null", rate ? fmt::format("{:.3f}", p.per_minute()) : "null", p.out,
      opt_time(p.runs_out_at), opt_num(p.left_at_reset),
      p.no_projection.empty() ? "null" : json_quote(p.no_projection));
}

}  // namespace

std::string projection_text(const ReportData& r) {
  const Findings f = findings(r);
  std::string out;
  if (f.in_progress != nullptr) {
    out += fmt::format("\nhour ending {} in progress at {}\n", hour_text(f.in_progress->hour_ending),
                       meter::instant_text(*r.now));
    if (f.projections.empty()) out += "  (no core budget in this hour)\n";
    // The host is the log's (the parser keeps it printable); escaped all the same, as all table text is.
    for (const Projection& p : f.projections) out += "  " + terminal_text(projection_sentence(p)) + "\n";
  }
  if (!f.bursts.empty()) {
    out += fmt::format("\nstartup bursts (an hourly budget out within {} of its reset)\n", span(r.burst_within));
    for (const auto& [h, b] : f.bursts)
      out += fmt::format("  hour ending {}: {}\n", hour_text(h->hour_ending), terminal_text(burst_sentence(b)));
  }
  return out;
}

std::string projection_json(const ReportData& r, const FleetHour& h) {
  const bool in_progress = hour_in_progress(r.hours, r.now) == &h;
  std::string o = fmt::format(R"("in_progress":{},"projections":[)", in_progress);
  if (in_progress) {
    bool first = true;
    for (const Projection& p : project(h, *r.now)) o += (std::exchange(first, false) ? "" : ",") + projection_object(p);
  }
  o += R"(],"startup_bursts":[)";
  bool first = true;
  for (const Burst& b : startup_bursts(h, r.burst_within))
    o += fmt::format(R"({}{{{},"window_start":{},"out_at":{},"after_seconds":{}}})",
                     std::exchange(first, false) ? "" : ",", key_json(b.key), opt_time(b.window_start),
                     opt_time(b.out_at), (b.out_at - b.window_start).count());
  return o + "]";
}

std::string projection_html(const ReportData& r) {
  const Findings f = findings(r);
  if (f.in_progress == nullptr && f.bursts.empty()) return {};
  std::string out = "<h2>When will it run out?</h2>\n<ul class=projection>\n";
  if (f.in_progress != nullptr) {
    for (const Projection& p : f.projections) {
      const bool runs_out = p.out || p.runs_out_at;
      out += fmt::format("<li class={}{}>hour ending {} (in progress at {}): {}</li>\n", runs_out ? "out" : "lasts",
                         runs_out ? kRed : "", hour_text(f.in_progress->hour_ending), clock_text(*r.now),
                         html_escape(projection_sentence(p)));
    }
  }
  for (const auto& [h, b] : f.bursts)
    out += fmt::format("<li class=burst{}>hour ending {}: {}</li>\n", kRed, hour_text(h->hour_ending),
                       html_escape(burst_sentence(b)));
  return out + "</ul>\n";
}

}  // namespace forgemeter::report
