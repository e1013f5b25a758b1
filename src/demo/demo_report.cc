#include "demo/demo_report.h"

#include <algorithm>

#include <fmt/format.h>

#include "demo/demo_fleet.h"
#include "meter/civil.h"

namespace forgemeter::demo {

using meter::clock_text;
using meter::hour_text;
using report::FleetHour;

std::string hour_line(int number, const FleetHour& h) {
  std::string lanes;
  for (const auto& [lane, n] : h.lanes) lanes += fmt::format("{}{} {}", lanes.empty() ? "" : ", ", lane, n);
  const std::string notes = report::join(report::budget_notes(h), "; ");
  return fmt::format("hour {}, ending {}{}: {} requests from {} replicas ({}){}{}", number, hour_text(h.hour_ending),
                     h.partial() ? " (partial)" : "", h.requests, h.sources.size(), lanes,
                     h.exhausted()   ? " — EXHAUSTED: "
                     : notes.empty() ? ""
                                     : " — ",
                     notes);
}

namespace {

void compare_period(Comparison& c, const std::vector<FleetHour>& hours, const ForgePeriod& p) {
  LaneCounts report;
  for (const FleetHour& h : hours)
    if (h.hour_ending > p.from && h.hour_ending <= p.until)
      for (const auto& [lane, n] : h.lanes) report[lane] += n;
  LaneCounts keys = report;
  for (const auto& [lane, n] : p.lanes) keys[lane];
  std::uint64_t rt = 0, ft = 0;
  for (const auto& [lane, unused] : keys) {
    const std::uint64_t r = report[lane], f = p.lanes.count(lane) ? p.lanes.at(lane) : 0;
    rt += r;
    ft += f;
    c.agree = c.agree && r == f;
    c.text += fmt::format("  {:<14} {:<20} {:>8} {:>8}  {}\n", p.label, lane, r, f, r == f ? "agree" : "DIFFER");
  }
  c.agree = c.agree && rt == ft;
  c.text +=
      fmt::format("  {:<14} {:<20} {:>8} {:>8}  {}\n", p.label, "all lanes", rt, ft, rt == ft ? "agree" : "DIFFER");
}

// The answers 304 the report holds for the period (every host and lane) beside the forge's.
void compare_not_modified(Comparison& c, const std::vector<FleetHour>& hours, const ForgePeriod& p) {
  std::uint64_t r = 0, f = 0;
  for (const FleetHour& h : hours)
    if (h.hour_ending > p.from && h.hour_ending <= p.until)
      for (const auto& [key, counts] : h.answers) r += counts[static_cast<std::size_t>(AnswerClass::not_modified)];
  for (const auto& [lane, n] : p.not_modified) f += n;
  c.agree = c.agree && r == f;
  c.text +=
      fmt::format("  {:<14} {:<20} {:>8} {:>8}  {}\n", p.label, "answered 304", r, f, r == f ? "agree" : "DIFFER");
}

std::uint64_t count_of(const LaneCounts& counts, std::string_view lane) {
  const auto it = counts.find(std::string(lane));
  return it == counts.end() ? 0 : it->second;
}

}  // namespace

Comparison compare(const std::vector<FleetHour>& hours, const std::vector<ForgePeriod>& periods) {
  Comparison c;
  c.text = fmt::format("  {:<14} {:<20} {:>8} {:>8}\n", "hours", "lane", "report", "forge");
  for (const ForgePeriod& p : periods) compare_period(c, hours, p);
  for (const ForgePeriod& p : periods) compare_not_modified(c, hours, p);
  return c;
}

std::string forge_counts_json(const std::vector<ForgePeriod>& periods) {
  std::string out = R"({"periods":[)";
  for (std::size_t i = 0; i < periods.size(); ++i) {
    const ForgePeriod& p = periods[i];
    std::uint64_t total = 0;
    std::string lanes, not_modified;
    for (const auto& [lane, n] : p.lanes) {
      total += n;
      lanes += fmt::format("{}{}:{}", lanes.empty() ? "" : ",", report::json_quote(lane), n);
    }
    for (const auto& [lane, n] : p.not_modified)
      not_modified += fmt::format("{}{}:{}", not_modified.empty() ? "" : ",", report::json_quote(lane), n);
    out += fmt::format(R"({}{{"label":{},"from":"{}","until":"{}","requests":{},"lanes":{{{}}},"not_modified":{{{}}},)"
                       R"("tokens_minted":{}}})",
                       i ? "," : "", report::json_quote(p.label), hour_text(p.from), hour_text(p.until), total, lanes,
                       not_modified, p.tokens_minted);
  }
  return out + "]}\n";
}

std::string charged_text(const std::vector<ForgePeriod>& periods, int distinct) {
  std::string out = "sweep charged (the forge's count; a 304 is free):";
  for (std::size_t i = 0; i < periods.size(); ++i) {
    const std::uint64_t wire = count_of(periods[i].lanes, kSweepLane);
    const std::uint64_t free = std::min(wire, count_of(periods[i].not_modified, kSweepLane));
    out += fmt::format("{} {} ", i ? ";" : "", periods[i].label);
    out += free == 0 ? fmt::format("{} requests, no 304 (no cache)", wire)
                     : fmt::format("{} of {} requests ({} revalidated by the cache: 304)", wire - free, wire, free);
  }
  return out + fmt::format("; the sweep reads {} distinct resources\n", distinct);
}

std::string minted_text(const std::vector<ForgePeriod>& periods, int replicas) {
  std::string out = fmt::format(
      "installation tokens minted (the forge's count; {} replicas, each minting its own, renewed with a minute left):",
      replicas);
  for (std::size_t i = 0; i < periods.size(); ++i)
    out += fmt::format("{} {} {}", i ? ";" : "", periods[i].label, periods[i].tokens_minted);
  return out + "\n";
}

namespace {

std::uint64_t sweep_requests(const FleetHour& h) {
  auto it = h.lanes.find(std::string(kSweepLane));
  return it == h.lanes.end() ? std::uint64_t{0} : it->second;
}

// How long the sweep's lane waited for its pace in hour `h`, summed over the fleet.
std::chrono::milliseconds paced_wait(const FleetHour& h) {
  std::uint64_t ms = 0;
  for (const auto& [key, economy] : h.economy)
    if (key.lane == kSweepLane) ms += economy.waited_ms[static_cast<std::size_t>(WaitCause::pacing)];
  return std::chrono::milliseconds(ms);
}

// Hour 3: what the paced fleet spent and what the lowest reading left, against the keep.
std::string paced_text(const FleetHour& h, const DemoPlan& plan) {
  const auto keep = static_cast<std::uint64_t>(plan.keep_fraction * static_cast<double>(plan.budget));
  std::string out = fmt::format("hour 3: every replica swept, unelected but paced: {} requests ({} by the sweep)",
                                h.requests, sweep_requests(h));
  if (const report::BudgetView* b = h.lowest_budget(); b && b->lowest)
    out += fmt::format("; the lowest reading, at {}, left {} of {} (to keep: {})", clock_text(b->lowest_at), *b->lowest,
                       b->limit.value_or(plan.budget), keep);
  const double waited = std::chrono::duration<double>(paced_wait(h)).count();
  return out + fmt::format("; the sweep waited {:.0f} s for its pace (all replicas); the hour is {}\n", waited,
                           h.exhausted() ? "EXHAUSTED" : "not exhausted");
}

}  // namespace

Headline headline(const std::vector<FleetHour>& hours, const DemoPlan& plan) {
  Headline out;
  if (hours.empty()) return out;
  if (auto at = hours[0].first_exhausted_at()) {
    const auto minute = std::chrono::duration_cast<std::chrono::minutes>(*at - hours[0].hour_start()).count();
    out.text += fmt::format("hour 1: the installation's budget ran out at {}, minute {} of the hour\n", clock_text(*at),
                            minute);
  } else {
    out.text += "hour 1: the budget did not run out\n";
  }
  if (hours.size() < 2) return out;
  const std::uint64_t h1 = sweep_requests(hours[0]), h2 = sweep_requests(hours[1]);
  out.text += fmt::format("sweep cost: hour 1 {} requests, hour 2 {}: {:.1f}x less with the lane elected (R = {})\n",
                          h1, h2, h2 > 0 ? static_cast<double>(h1) / static_cast<double>(h2) : 0.0, plan.replicas);
  const bool hour2_exhausted = hours[1].exhausted();
  if (auto limited = hours[1].first_limited_at())
    out.text += fmt::format(
        "hour 2: a burst of searches spent the search bucket (30 a minute) at {}: reported as limited, "
        "and the hour is {}\n",
        clock_text(*limited), hour2_exhausted ? "EXHAUSTED" : "not exhausted");
  if (hour2_exhausted) out.failure = "with the sweep's lane elected, hour 2 still ran out of its budget";
  if (hours.size() < 3) return out;
  out.text += paced_text(hours[2], plan);
  if (hours[2].exhausted() && out.failure.empty())
    out.failure = "with the sweep's lane paced, hour 3 still ran out of its budget";
  if (hours.size() < 4) return out;
  out.text += fmt::format(
      "hour 4: every replica swept through a forgemeter proxy of its own, which cached and paced: {} requests ({} "
      "by the sweep), counted by the proxies; the sweep waited {:.0f} s for its pace; the hour is {}\n",
      hours[3].requests, sweep_requests(hours[3]), std::chrono::duration<double>(paced_wait(hours[3])).count(),
      hours[3].exhausted() ? "EXHAUSTED" : "not exhausted");
  if (hours[3].exhausted() && out.failure.empty())
    out.failure = "with the sweep through paced proxies, hour 4 still ran out of its budget";
  return out;
}

}  // namespace forgemeter::demo
