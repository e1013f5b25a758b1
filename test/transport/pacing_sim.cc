#include "pacing_sim.h"

#include <algorithm>

#include "pacing_clock.h"

namespace fmtest {

constexpr UtcMillis kStart = kPaceStart;

FleetSim::FleetSim(FleetPlan plan)
    : plan_(plan),
      clock_(kStart),
      start_(clock_.steady_now()),
      window_end_(kStart + std::chrono::duration_cast<std::chrono::milliseconds>(plan.window)),
      remaining_(plan.limit) {
  result_.windows.resize(static_cast<std::size_t>(plan.windows));
  const Duration every = demand_interval();
  for (int i = 0; i < plan_.replicas; ++i) add_replica(start_ + every * i / plan_.replicas);
  for (int i = 0; i < plan_.late_replicas; ++i)
    add_replica(start_ + plan_.window / 2 + every * i / std::max(1, plan_.late_replicas));
}

Duration FleetSim::demand_interval() const {
  // Each replica brings demand × limit / replicas requests a window.
  const double per_replica = plan_.demand * static_cast<double>(plan_.limit) / plan_.replicas;
  return std::chrono::duration_cast<Duration>(plan_.window / per_replica);
}

void FleetSim::add_replica(SteadyTime first) {
  td::PacedLane lane{.lane = kSweeper, .installation = kInstallation, .keep_fraction = plan_.keep_fraction};
  replicas_.push_back(Replica{.governor = std::make_unique<td::PacingGovernor>(std::vector{lane}, clock_),
                              .every = demand_interval(),
                              .next_arrival = first});
  if (plan_.unpaced > 0) replicas_.back().next_unpaced = first;
}

// One answer of the simulated forge: the budget refills at each reset.
void FleetSim::send(Replica& r) {
  const UtcMillis now = clock_.now();
  while (now >= window_end_) {
    window_end_ += std::chrono::duration_cast<std::chrono::milliseconds>(plan_.window);
    remaining_ = plan_.limit;
    ++window_index_;
  }
  ++result_.sent;
  if (window_index_ >= result_.windows.size()) return;
  WindowTally& w = result_.windows[window_index_];
  if (remaining_ == 0) {
    ++w.limited;
  } else {
    --remaining_;
    ++w.spent;
    const auto into = plan_.window - (window_end_ - now);
    ++w.quarters[std::min<std::size_t>(3, static_cast<std::size_t>(into * 4 / plan_.window))];
  }
  const forgemeter::meter::Reading reading{.remaining = remaining_,
                                           .limit = plan_.limit,
                                           .seen = now,
                                           .reset = std::chrono::floor<std::chrono::seconds>(window_end_)};
  r.governor->offer(kInstallation, "core", reading);
}

void FleetSim::serve(Replica& r) {
  const SteadyTime now = clock_.steady_now();
  for (; r.next_unpaced <= now; r.next_unpaced += std::chrono::duration_cast<Duration>(plan_.window / plan_.unpaced))
    send(r);
  while (r.next_arrival <= now) {
    r.queue.push_back(r.next_arrival);
    r.next_arrival += r.every;
  }
  if (r.retry_at && *r.retry_at > now) return;
  r.retry_at.reset();
  while (!r.queue.empty()) {
    const td::PaceVerdict v = r.governor->admit(kSweeper, kInstallation, "core");
    if (!v.go) {
      r.retry_at = v.retry_at;
      return;
    }
    if (r.queue.front() < now) {
      ++result_.waited;
      result_.longest_wait = std::max<Duration>(result_.longest_wait, now - r.queue.front());
    }
    r.queue.pop_front();
    send(r);
  }
}

SteadyTime FleetSim::next_event() const {
  SteadyTime next = SteadyTime::max();
  for (const Replica& r : replicas_) {
    next = std::min({next, r.next_arrival, r.next_unpaced});
    if (!r.queue.empty() && r.retry_at) next = std::min(next, *r.retry_at);
  }
  return next;
}

FleetResult FleetSim::run() {
  const SteadyTime end = start_ + plan_.window * plan_.windows;
  for (SteadyTime t = next_event(); t < end; t = next_event()) {
    if (t > clock_.steady_now()) clock_.advance(t - clock_.steady_now());
    for (Replica& r : replicas_)
      if (r.next_arrival <= t || r.next_unpaced <= t || (!r.queue.empty() && r.retry_at && *r.retry_at <= t)) serve(r);
  }
  return result_;
}

}  // namespace fmtest
