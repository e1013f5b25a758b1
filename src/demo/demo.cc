// The demo's run: the fleet on the loopback forge, its lines, the report of
// them beside the forge's own counts, and the headline.
#include <cstdio>
#include <latch>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "demo/demo.h"
#include "demo/demo_fleet.h"
#include "forgemeter/memory_store.h"
#include "meter/civil.h"
#include "report/output.h"
#include "report/render.h"
#include "report/scanner.h"

namespace forgemeter::demo {

using meter::clock_text;
using meter::hour_text;

namespace {

using namespace report;

// In hour 2 replica 0 runs this many searches at once, this long into the
// hour: more than the 30 a minute GitHub's `search` bucket holds.
constexpr int kBurst = 36;
constexpr auto kBurstAfter = std::chrono::minutes(20);

using LaneCounts = std::map<std::string, std::uint64_t>;

LaneCounts forge_lanes(testforge::Forge& forge) {
  LaneCounts out;
  for (const auto& [lane, n] : forge.truth().by_lane()) out[lane.empty() ? "other" : lane] += n;
  return out;
}

LaneCounts minus(LaneCounts a, const LaneCounts& b) {
  for (const auto& [k, v] : b) a[k] -= v;
  return a;
}

// Blocks until the clock reads `t` (or later).
void wait_clock(FastClock& clock, UtcMillis t) {
  auto left = t - clock.now();
  if (left > Duration::zero()) clock.wait_until(clock.steady_now() + left, std::stop_token{});
}

struct Comparison {
  std::string text;
  bool agree = true;
};

// The report's lanes over hours [first, last] beside the forge's counts for the same hours.
void compare(Comparison& c, const std::string& label, const std::vector<FleetHour>& hours, std::size_t first,
             std::size_t last, const LaneCounts& forge) {
  LaneCounts report;
  for (std::size_t i = first; i <= last && i < hours.size(); ++i)
    for (const auto& [lane, n] : hours[i].lanes) report[lane] += n;
  LaneCounts keys = report;
  for (const auto& [k, v] : forge) keys[k];
  std::uint64_t rt = 0, ft = 0;
  for (const auto& [lane, unused] : keys) {
    std::uint64_t r = report[lane], f = forge.count(lane) ? forge.at(lane) : 0;
    rt += r;
    ft += f;
    c.agree = c.agree && r == f;
    c.text += fmt::format("  {:<14} {:<20} {:>8} {:>8}  {}\n", label, lane, r, f, r == f ? "agree" : "DIFFER");
  }
  c.agree = c.agree && rt == ft;
  c.text += fmt::format("  {:<14} {:<20} {:>8} {:>8}  {}\n", label, "all lanes", rt, ft, rt == ft ? "agree" : "DIFFER");
}

}  // namespace

int run_demo(const DemoArgs& a) {
  DemoPlan plan;
  plan.replicas = a.replicas;
  plan.hours = a.hours;
  plan.speed = a.speed;
  plan.start = std::chrono::sys_days{std::chrono::year{2026} / 9 / 30} + std::chrono::hours(9);
  const UtcMillis end = plan.hour_start(plan.hours + 1);
  const auto freeze_before = std::chrono::seconds(1);

  FastClock clock(plan.start - std::chrono::seconds(10), plan.speed);
  testforge::ForgeOptions fo;
  fo.clock = &clock;
  fo.installation_limit = plan.budget;
  fo.threads = 32;
  testforge::Forge forge(fo);
  MemoryStore store;
  std::vector<std::unique_ptr<Replica>> fleet;
  fleet.reserve(static_cast<std::size_t>(plan.replicas));
  for (int i = 0; i < plan.replicas; ++i) fleet.push_back(std::make_unique<Replica>(i, plan, clock, forge));

  std::printf("forgemeter-demo: %d replicas, %d simulated hours at %gx real time, loopback forge on 127.0.0.1:%d\n",
              plan.replicas, plan.hours, plan.speed, forge.port());
  fmt::print("installation {}: {} requests an hour; modelled sweep demand, unelected: {} an hour\n", plan.installation,
             plan.budget, plan.sweep_per_replica_hour() * static_cast<std::uint64_t>(plan.replicas));
  std::printf("hour 1 (%s-%s): every replica sweeps; %s: the lane \"%s\" elected through the lease\n\n",
              hour_text(std::chrono::floor<std::chrono::seconds>(plan.hour_start(1))).c_str(),
              hour_text(std::chrono::floor<std::chrono::seconds>(plan.hour_start(2))).substr(11).c_str(),
              plan.hours >= 2 ? "later hours" : "(no later hour)", std::string(kSweepLane).c_str());
  std::fflush(stdout);

  std::latch hour1_done(std::ptrdiff_t{3} * plan.replicas);
  std::latch go(1);
  std::stop_source stop;
  std::mutex events_mu;
  std::vector<std::string> events;
  const UtcMillis h1_freeze = plan.hour_start(2) - freeze_before, end_freeze = end - freeze_before;
  std::vector<std::jthread> threads;
  for (auto& r : fleet) {
    Replica* rp = r.get();
    threads.emplace_back([&, rp] {
      rp->sweep_unelected(plan.hour_start(1), h1_freeze);
      hour1_done.count_down();
      go.wait();
      if (plan.hours >= 2) rp->sweep_elected(store, stop.get_token(), events, events_mu);
    });
    threads.emplace_back([&, rp] {
      rp->background(plan.hour_start(1), h1_freeze, {});
      hour1_done.count_down();
      go.wait();
      if (plan.hours >= 2) rp->background(plan.hour_start(2), end_freeze, stop.get_token());
    });
    threads.emplace_back([&, rp] {
      rp->searches(plan.hour_start(1), h1_freeze, {}, {}, 0);
      hour1_done.count_down();
      go.wait();
      if (plan.hours >= 2)
        rp->searches(plan.hour_start(2), end_freeze, stop.get_token(), plan.hour_start(2) + kBurstAfter, kBurst);
    });
  }
  // Each boundary: stop time just before it, let every request of the hour land, count, go on.
  wait_clock(clock, h1_freeze);
  clock.freeze();
  hour1_done.wait();
  LaneCounts forge_h1 = forge_lanes(forge);
  clock.jump_to(plan.hour_start(2));
  clock.resume();
  go.count_down();
  if (plan.hours >= 2) {
    wait_clock(clock, end_freeze);
    clock.freeze();
  }
  stop.request_stop();
  threads.clear();  // joins
  LaneCounts forge_all = forge_lanes(forge);
  clock.jump_to(end);
  for (auto& r : fleet) r->flush();

  Fleet model;
  Scanner scanner(model, {});
  for (auto& r : fleet) {
    std::printf("%s:\n", r->name().c_str());
    for (const auto& line : r->lines()) {
      std::printf("  %s\n", line.c_str());
      scanner.scan_line_from(line, r->name());
    }
  }
  ReportData data{model.hours(), model.source_names(), scanner.stats()};
  std::printf("\nlease events:\n");
  for (const auto& e : events) std::printf("  %s\n", e.c_str());
  std::printf("\nthe fleet report of those lines (forgemeter report):\n\n%s", render_table(data).c_str());

  Comparison c;
  c.text = fmt::format("  {:<14} {:<20} {:>8} {:>8}\n", "hours", "lane", "report", "forge");
  compare(c, "hour 1", data.hours, 0, 0, forge_h1);
  if (plan.hours >= 2)
    compare(c, plan.hours == 2 ? "hour 2" : fmt::format("hours 2-{}", plan.hours), data.hours, 1, data.hours.size(),
            minus(forge_all, forge_h1));
  std::printf("\nthe report beside the forge's own count of what it received:\n%s", c.text.c_str());
  if (!data.hours.empty()) {
    if (auto out = data.hours[0].first_exhausted_at()) {
      auto minute = std::chrono::duration_cast<std::chrono::minutes>(*out - data.hours[0].hour_start()).count();
      std::printf("\nhour 1: the installation's budget ran out at %s, minute %lld of the hour\n",
                  clock_text(*out).c_str(), static_cast<long long>(minute));
    } else {
      std::printf("\nhour 1: the budget did not run out\n");
    }
  }
  if (data.hours.size() >= 2) {
    auto sweep = [&](std::size_t i) {
      auto it = data.hours[i].lanes.find(std::string(kSweepLane));
      return it == data.hours[i].lanes.end() ? std::uint64_t{0} : it->second;
    };
    std::uint64_t h1 = sweep(0), h2 = sweep(1);
    std::printf("sweep cost: hour 1 %llu requests, hour 2 %llu: %.1fx less with the lane elected (R = %d)\n",
                static_cast<unsigned long long>(h1), static_cast<unsigned long long>(h2),
                h2 > 0 ? static_cast<double>(h1) / static_cast<double>(h2) : 0.0, plan.replicas);
  }
  bool elected_hour_exhausted = false;
  if (data.hours.size() >= 2) {
    const FleetHour& h2 = data.hours[1];
    elected_hour_exhausted = h2.exhausted();
    if (auto limited = h2.first_limited_at())
      std::printf(
          "hour 2: a burst of searches spent the search bucket (30 a minute) at %s: reported as limited, "
          "and the hour is %s\n",
          clock_text(*limited).c_str(), elected_hour_exhausted ? "EXHAUSTED" : "not exhausted");
  }
  if (!a.html.empty()) {
    write_file(a.html, render_html(data));
    std::printf("report page: %s\n", a.html.c_str());
  }
  std::fflush(stdout);
  if (!c.agree) throw DemoFailed("the fleet report and the forge's own count differ (see above)");
  if (elected_hour_exhausted) throw DemoFailed("with the sweep's lane elected, hour 2 still ran out of its budget");
  return 0;
}

}  // namespace forgemeter::demo
