#include "paced_fleet.h"

#include <algorithm>
#include <variant>

#include "forgemeter/lines.h"

namespace fmtest {

using forgemeter::Lane;
using forgemeter::UtcMillis;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;

struct PacedFleet::Replica {
  mutable std::mutex mu;
  std::vector<std::string> lines;  // what its meter wrote
  std::unique_ptr<forgemeter::Meter> meter;
  std::unique_ptr<forgemeter::Transport> transport;
  struct Counts {
    std::atomic<std::uint64_t> ok{0}, limited{0}, other{0};
  } paced, unpaced;
};

namespace {

void sleep_until_wall(UtcMillis t, const std::stop_token& stop) {
  const auto steady = forgemeter::system_clock().steady_now() + (t - forgemeter::system_clock().now());
  forgemeter::system_clock().wait_until(steady, stop);
}

}  // namespace

UtcMillis next_window_start(milliseconds window, milliseconds lead) {
  const auto now = forgemeter::system_clock().now() + lead;
  const auto since = now.time_since_epoch();
  return UtcMillis((since / window + 1) * window);
}

PacedFleet::PacedFleet(tf::Forge& forge, FleetSpec spec, std::uint64_t limit, UtcMillis start, milliseconds window,
                       UtcMillis end)
    : forge_(forge), spec_(spec), end_(end) {
  forge_.budgets().set_limit(spec.installation, limit);
  const int total = spec.replicas + spec.late;
  const double per_replica = spec.demand * static_cast<double>(limit) / spec.replicas;
  const auto every = std::chrono::duration_cast<nanoseconds>(window / per_replica);
  for (int i = 0; i < total; ++i) {
    auto r = std::make_unique<Replica>();
    Replica& rr = *r;
    r->meter = std::make_unique<forgemeter::Meter>(forgemeter::MeterOptions{.sink = [&rr](std::string_view l) {
      std::lock_guard lock(rr.mu);
      rr.lines.emplace_back(l);
    }});
    forgemeter::TransportOptions o{.meter = r->meter.get(), .resolve = forge.resolve()};
    o.rate_limits.pacing.lanes = {{.lane = kPacedLane, .installation = spec.installation, .keep_fraction = spec.keep}};
    r->transport = std::make_unique<forgemeter::Transport>(std::move(o));
    replicas_.push_back(std::move(r));
  }
  for (int i = 0; i < total; ++i) {
    const bool late = i >= spec.replicas;
    const int k = late ? i - spec.replicas : i;
    const UtcMillis first =
        (late ? start + window / 2 : start) +
        std::chrono::duration_cast<milliseconds>(every * k / std::max(1, late ? spec.late : spec.replicas));
    Replica& r = *replicas_[static_cast<std::size_t>(i)];
    threads_.emplace_back([this, &r, every, first](std::stop_token stop) { run(r, kPacedLane, every, first, stop); });
    if (spec.unpaced > 0) {
      const auto u = std::chrono::duration_cast<nanoseconds>(window / spec.unpaced);
      threads_.emplace_back([this, &r, u, first](std::stop_token stop) { run(r, kUnpacedLane, u, first, stop); });
    }
  }
}

PacedFleet::~PacedFleet() { join(); }

void PacedFleet::join() {
  if (threads_.empty()) return;
  sleep_until_wall(end_, {});
  for (auto& t : threads_) t.request_stop();
  threads_.clear();  // joins
  for (auto& r : replicas_) r->meter->flush();
}

void PacedFleet::run(Replica& r, Lane lane, nanoseconds every, UtcMillis first, std::stop_token stop) {
  auto& counts = lane == kPacedLane ? r.paced : r.unpaced;
  const std::string url = forge_.url("api.forge.test", "/repos/o/r/pulls/1");
  const std::string bearer = "inst-" + std::to_string(spec_.installation);
  for (std::int64_t i = 0; !stop.stop_requested(); ++i) {
    sleep_until_wall(first + std::chrono::duration_cast<milliseconds>(every * i), stop);
    if (stop.stop_requested()) return;
    const forgemeter::Response res = r.transport->perform(
        {.url = url, .lane = lane, .installation = spec_.installation, .bearer = bearer, .stop = stop});
    if (res.ok()) {
      ++counts.ok;
    } else if (res.error.code == forgemeter::TransportErrc::budget_exhausted) {
      ++counts.limited;
    } else if (!(res.error.code == forgemeter::TransportErrc::cancelled && stop.stop_requested())) {
      ++counts.other;
    }
  }
}

LaneTally PacedFleet::tally(Lane lane) const {
  LaneTally t;
  for (const auto& r : replicas_) {
    const auto& c = lane == kPacedLane ? r->paced : r->unpaced;
    t.ok += c.ok;
    t.limited += c.limited;
    t.other += c.other;
    std::lock_guard lock(r->mu);
    for (const std::string& l : r->lines) {
      const forgemeter::LineScan scan = forgemeter::scan_line(l);
      const auto* lanes = std::get_if<forgemeter::LanesLine>(&scan.line);
      if (lanes == nullptr) continue;
      for (const auto& e : lanes->entries) {
        if (e.lane != lane.name()) continue;
        t.paced_ms += e.waited_ms[static_cast<std::size_t>(forgemeter::WaitCause::pacing)];
        t.held_ms += e.waited_ms[static_cast<std::size_t>(forgemeter::WaitCause::secondary)];
      }
    }
  }
  return t;
}

}  // namespace fmtest
