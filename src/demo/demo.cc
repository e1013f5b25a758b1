// The demo's run: the fleet on the loopback forge, each hour printed as it
// finishes, then the report of the replicas' lines beside the forge's own
// counts, and the headline.
#include "demo/demo.h"

#include <cstdio>
#include <filesystem>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "demo/demo_fleet.h"
#include "demo/demo_report.h"
#include "demo/fleet_log.h"
#include "demo/fleet_metrics.h"
#include "demo/hour_end.h"
#include "forgemeter/memory_store.h"
#include "meter/civil.h"
#include "report/output.h"
#include "report/scanner.h"

namespace forgemeter::demo {

using meter::hour_text;

namespace {

using namespace report;

// In hour 2 replica 0 runs this many searches at once, this long into the
// hour: more than the 30 a minute GitHub's `search` bucket holds.
constexpr int kBurst = 36;
constexpr auto kBurstAfter = std::chrono::minutes(20);
// How long (real time) an hour's lines may take to come once it is over: its
// replicas write them at their next request, a simulated minute later.
constexpr auto kLinesWithin = std::chrono::seconds(20);
// How long (real time) the requests on the wire at an hour's end may take to
// land (a hop's own timeout is 60 s; on loopback one takes milliseconds).
constexpr auto kLandWithin = std::chrono::seconds(30);

LaneCounts forge_lanes(testforge::Forge& forge) {
  LaneCounts out;
  for (const auto& [lane, n] : forge.truth().by_lane()) out[lane.empty() ? "other" : lane] += n;
  return out;
}

// The forge's answers 304 so far, by lane.
LaneCounts forge_not_modified(testforge::Forge& forge) {
  LaneCounts out;
  for (const auto& [host_lane, c] : forge.truth().conditionals_by_host_and_lane())
    if (c.not_modified > 0) out[host_lane.second.empty() ? "other" : host_lane.second] += c.not_modified;
  return out;
}

// What the forge received so far, and which of it it answered 304.
ForgePeriod forge_period(testforge::Forge& forge, std::string label, Instant from, Instant until) {
  return {std::move(label), from, until, forge_lanes(forge), forge_not_modified(forge)};
}

LaneCounts minus(LaneCounts a, const LaneCounts& b) {
  for (const auto& [k, v] : b) a[k] -= v;
  return a;
}

// Blocks until the clock reads `t` (or later).
void wait_clock(FastClock& clock, UtcMillis t) { clock.wait_until(clock.steady_at(t), std::stop_token{}); }

Instant seconds(UtcMillis t) { return std::chrono::floor<std::chrono::seconds>(t); }

// The replicas' names and the sources their lines are reported under: with
// --logs, the log files' paths, so `forgemeter report DIR/*.log` prints the
// same table (names padded so the shell's sorting keeps replica order).
struct Names {
  std::vector<std::string> replicas, sources;
};
Names replica_names(const DemoArgs& a) {
  Names n;
  const int width = static_cast<int>(fmt::to_string(std::max(a.replicas - 1, 0)).size());
  for (int i = 0; i < a.replicas; ++i) {
    n.replicas.push_back(fmt::format("web-{:0{}}", i, width));
    n.sources.push_back(a.logs.empty() ? n.replicas.back() : a.logs + "/" + n.replicas.back() + ".log");
  }
  return n;
}

ReportData report_of(const FleetLog& log, const Names& n, const std::optional<int>& lost) {
  Fleet model;
  Scanner scanner(model, {});
  for (std::size_t i = 0; i < n.sources.size(); ++i) {
    if (lost && static_cast<std::size_t>(*lost) == i) continue;
    for (const auto& line : log.lines(i)) scanner.scan_line_from(line, n.sources[i]);
  }
  return {model.hours(), model.source_names(), scanner.stats()};
}

// Prints hour `number`'s fleet line once every replica has written it.
void print_hour(std::FILE* out, const FleetLog& log, const Names& n, int number, Instant hour_ending) {
  log.await_hour(hour_ending, kLinesWithin);  // late: the line says how many replicas it has
  for (const FleetHour& h : report_of(log, n, std::nullopt).hours)
    if (h.hour_ending == hour_ending) fmt::print(out, "{}\n", hour_line(number, h));
  std::fflush(out);
}

void write_logs(const DemoArgs& a, const FleetLog& log, const Names& n) {
  std::error_code ec;
  std::filesystem::create_directories(a.logs, ec);  // write_file() says what went wrong, if anything did
  for (std::size_t i = 0; i < n.sources.size(); ++i) {
    if (a.lose_log && static_cast<std::size_t>(*a.lose_log) == i) continue;
    std::string text;
    for (const auto& line : log.lines(i)) text += line + "\n";
    write_file(n.sources[i], text);
  }
}

// The lease the sweep's lane is elected through in hour 2, and what the campaigns said.
struct Election {
  MemoryStore store;
  std::mutex mu;
  std::vector<std::string> events;
};

std::string plan_text(const DemoPlan& plan) {
  std::string out = fmt::format("hour 1 ({}-{}): every replica sweeps", hour_text(seconds(plan.hour_start(1))),
                                hour_text(seconds(plan.hour_start(2))).substr(11));
  if (plan.hours >= 2)
    out += fmt::format("; hour 2: the lane \"{}\" elected through the lease, its sweep through a conditional cache",
                       kSweepLane);
  if (plan.hours >= 3)
    out += fmt::format("; hour 3: every replica sweeps again, unelected but paced to keep {:g} % at the reset",
                       plan.keep_fraction * 100);
  if (plan.hours >= 4)
    out += "; hour 4: every replica sweeps through a forgemeter proxy of its own, which caches and paces";
  return out + "\n";
}

// Starts replica `r`'s loops for hour `h` (from, until): its sweep as the hour
// has it (1 unelected, 2 elected, 3 paced), its untagged requests and searches.
void start_hour(std::vector<std::jthread>& threads, Replica& r, int h, const DemoPlan& plan, UtcMillis until,
                HourEnd& end, Election& election) {
  const UtcMillis from = plan.hour_start(h);
  threads.emplace_back([&r, &election, &end, h, from, until] {
    if (h == 2)
      r.sweep_elected(election.store, end, election.events, election.mu);
    else if (h == 4)
      r.sweep_proxied(from, until, end);
    else
      r.sweep_unelected(from, until, end, /*paced=*/h == 3);
  });
  threads.emplace_back([&r, &end, from, until] { r.background(from, until, end); });
  const int burst = h == 2 ? kBurst : 0;
  threads.emplace_back([&r, &end, from, until, burst] { r.searches(from, until, end, from + kBurstAfter, burst); });
}

// --metrics-addr: each replica's Meter on /metrics (null without the option).
std::unique_ptr<FleetMetrics> serve_metrics(const DemoArgs& a, const std::vector<std::unique_ptr<Replica>>& fleet) {
  if (a.metrics_addr.empty()) return nullptr;
  std::vector<std::pair<std::string, const Meter*>> meters;
  meters.reserve(fleet.size());
  for (const auto& r : fleet) meters.emplace_back(r->name(), &r->meter());
  return std::make_unique<FleetMetrics>(a.metrics_addr, meters);
}

// The demo's day: starting 09:00 on 30 September 2026, as the options say.
DemoPlan plan_of(const DemoArgs& a) {
  DemoPlan plan;
  plan.replicas = a.replicas;
  plan.hours = a.hours;
  plan.speed = a.speed;
  plan.start = std::chrono::sys_days{std::chrono::year{2026} / 9 / 30} + std::chrono::hours(9);
  return plan;
}

// The forge knows the demo's App by its public key, and installation 101 of
// it on the acme account; a token lives GitHub's hour on the forge's clock,
// the fast one: a simulated hour.
testforge::ForgeOptions forge_options(FastClock& clock, const DemoPlan& plan, const AppJwtSigner& app) {
  testforge::ForgeOptions fo;
  fo.clock = &clock;
  fo.installation_limit = plan.budget;
  // A keep-alive connection holds one of the forge's threads while it stays
  // open (30 s real); each replica keeps up to ten (its Transports, its
  // proxy's workers). With fewer threads, hour 4's proxies would queue for
  // those hours 2 and 3 left idle.
  fo.threads = 16 + 10 * static_cast<std::size_t>(plan.replicas);
  testforge::ForgeInstallation installation;
  installation.id = plan.installation;
  installation.account = "acme";
  installation.repositories = {"app"};
  fo.apps = {testforge::ForgeApp{app.app_id(), app.public_pem(), {installation}}};
  fo.token_lifetime = std::chrono::hours(1);
  return fo;
}

// What the hours run on, built while `clock` stands still (so every meter
// counts hour 1 from its start): the App (its key pair made now), the
// loopback forge, the lease the sweep is elected through, and the replicas,
// each writing its log.
struct Stage {
  Stage(const DemoArgs& a, const DemoPlan& plan, FastClock& clock)
      : clock(clock),
        app(plan.app),
        forge(forge_options(clock, plan, app)),
        names(replica_names(a)),
        log(names.replicas.size()) {
    fleet.reserve(names.replicas.size());
    for (std::size_t i = 0; i < names.replicas.size(); ++i)
      fleet.push_back(
          std::make_unique<Replica>(static_cast<int>(i), names.replicas[i], plan, clock, forge, app, log.sink(i)));
  }
  FastClock& clock;
  const AppJwtSigner app;
  testforge::Forge forge;
  Election election;
  const Names names;
  FleetLog log;
  std::vector<std::unique_ptr<Replica>> fleet;
};

// The demo's first lines: the fleet, the budget, the plan of the hours.
void tell_plan(std::FILE* out, const DemoPlan& plan, const Stage& stage) {
  fmt::print(out,
             "forgemeter-demo: {} replicas, {} simulated hours at {:g}x real time, loopback forge on 127.0.0.1:{}\n",
             plan.replicas, plan.hours, plan.speed, stage.forge.port());
  fmt::print(out, "installation {}: {} requests an hour; modelled sweep demand, unelected: {} an hour\n",
             plan.installation, plan.budget, plan.sweep_per_replica_hour() * static_cast<std::uint64_t>(plan.replicas));
  fmt::print(out,
             "GitHub App {} (its key pair made now): each replica mints its own installation token, which lives a "
             "simulated hour, and renews it with a minute left\n",
             plan.app);
  fmt::print(out, "{}\n", plan_text(plan));
}

// The forge's counts are cumulative: each hour's period is what they grew by.
class PeriodCounter {
 public:
  ForgePeriod take(testforge::Forge& forge, const DemoPlan& plan, int h) {
    ForgePeriod p =
        forge_period(forge, fmt::format("hour {}", h), seconds(plan.hour_start(h)), seconds(plan.hour_start(h + 1)));
    const LaneCounts lanes = p.lanes, not_modified = p.not_modified;
    p.lanes = minus(p.lanes, lanes_before_);
    p.not_modified = minus(p.not_modified, not_modified_before_);
    lanes_before_ = lanes;
    not_modified_before_ = not_modified;
    const std::uint64_t minted = forge.tokens_minted(plan.installation);
    p.tokens_minted = minted - minted_before_;
    minted_before_ = minted;
    return p;
  }

 private:
  LaneCounts lanes_before_, not_modified_before_;
  std::uint64_t minted_before_ = 0;
};

// Hour `h` on the fleet, printing hour h-1's line meanwhile. Time stops just
// before its end, the fleet starts no more requests, every request on the
// wire lands (HourEnd), then the forge is counted.
ForgePeriod run_hour(std::FILE* out, const DemoPlan& plan, Stage& stage, PeriodCounter& counter, int h) {
  const UtcMillis freeze = plan.hour_start(h + 1) - std::chrono::seconds(1);
  HourEnd end(stage.clock);  // outlives the threads
  std::vector<std::jthread> threads;
  for (auto& r : stage.fleet) start_hour(threads, *r, h, plan, freeze, end, stage.election);
  stage.clock.pause_at(freeze);
  stage.clock.resume();
  if (h > 1) print_hour(out, stage.log, stage.names, h - 1, seconds(plan.hour_start(h)));
  wait_clock(stage.clock, freeze);
  stage.clock.freeze();
  if (!end.end(kLandWithin))
    fmt::print(out, "hour {}: requests still on the wire {} s after its end were cancelled: the forge may lack them\n",
               h, std::chrono::duration_cast<std::chrono::seconds>(kLandWithin).count());
  threads.clear();  // joins
  ForgePeriod p = counter.take(stage.forge, plan, h);
  stage.clock.jump_to(plan.hour_start(h + 1));
  return p;
}

// Every hour of the plan, each line printed as its hour ends; the forge's count of each.
std::vector<ForgePeriod> run_hours(std::FILE* out, const DemoPlan& plan, Stage& stage) {
  std::vector<ForgePeriod> periods;
  PeriodCounter counter;
  for (int h = 1; h <= plan.hours; ++h) periods.push_back(run_hour(out, plan, stage, counter, h));
  for (auto& r : stage.fleet) r->flush();
  print_hour(out, stage.log, stage.names, plan.hours, seconds(plan.hour_start(plan.hours + 1)));
  return periods;
}

// What the demo found and says: the report of the replicas' lines beside the forge's counts.
struct Findings {
  ReportData data;
  Comparison comparison;
  Headline headline;
};

Findings tell_findings(std::FILE* out, const DemoArgs& a, const DemoPlan& plan, const Stage& stage,
                       const std::vector<ForgePeriod>& periods) {
  Findings f{report_of(stage.log, stage.names, a.lose_log), {}, {}};
  fmt::print(out, "\n{} logged (each replica logs its own; the report sums them):\n", stage.names.replicas[0]);
  for (const auto& line : stage.log.lines(0)) fmt::print(out, "  {}\n", line);
  fmt::print(out, "\nlease events:\n");
  for (const auto& e : stage.election.events) fmt::print(out, "  {}\n", e);
  fmt::print(out, "\nthe fleet report of those lines (forgemeter report):\n\n{}", render_table(f.data));
  f.comparison = compare(f.data.hours, periods);
  fmt::print(out, "\nthe report beside the forge's own count of what it received:\n{}\n", f.comparison.text);
  f.headline = headline(f.data.hours, plan);
  fmt::print(out, "{}", f.headline.text);
  fmt::print(out, "{}", charged_text(periods, 2 * plan.deep_runs));
  fmt::print(out, "{}", minted_text(periods, plan.replicas));
  return f;
}

// --logs, --forge-counts, --html.
void write_outputs(std::FILE* out, const DemoArgs& a, const Stage& stage, const std::vector<ForgePeriod>& periods,
                   const ReportData& data) {
  if (!a.logs.empty()) {
    write_logs(a, stage.log, stage.names);
    fmt::print(out, "replica logs: {}/*.log ('forgemeter report {}/*.log' prints the table above)\n", a.logs, a.logs);
  }
  if (!a.forge_counts.empty()) write_output(a.forge_counts, forge_counts_json(periods));
  if (!a.html.empty()) {
    write_output(a.html, render_html(data));
    if (a.html != "-") fmt::print(out, "report page: {}\n", a.html);
  }
}

}  // namespace

int run_demo(const DemoArgs& a) {
  // A page or the counts written to stdout ('-') keep it for themselves: the story goes to stderr.
  std::FILE* const out = a.html == "-" || a.forge_counts == "-" ? stderr : stdout;
  const DemoPlan plan = plan_of(a);
  FastClock clock(plan.start - std::chrono::seconds(10), plan.speed);
  clock.freeze();  // until the fleet is built
  Stage stage(a, plan, clock);
  tell_plan(out, plan, stage);
  const std::unique_ptr<FleetMetrics> served = serve_metrics(a, stage.fleet);  // before the fleet goes
  if (served) fmt::print(out, "the fleet's meters (label replica): {}\n\n", served->url());
  std::fflush(out);

  const std::vector<ForgePeriod> periods = run_hours(out, plan, stage);
  const Findings found = tell_findings(out, a, plan, stage, periods);
  write_outputs(out, a, stage, periods, found.data);
  if (served && a.linger > 0) {
    fmt::print(out, "serving the final numbers at {} for {} s more\n", served->url(), a.linger);
    std::fflush(out);
    std::this_thread::sleep_for(std::chrono::seconds(a.linger));
  }
  std::fflush(out);
  if (!found.comparison.agree) throw DemoFailed("the fleet report and the forge's own count differ (see above)");
  if (!found.headline.failure.empty()) throw DemoFailed(found.headline.failure);
  return 0;
}

}  // namespace forgemeter::demo
