#include "lease/sim_clock.h"

#include <doctest/doctest.h>

#include <algorithm>

namespace forgemeter::testing {

SimClock::SimClock(UtcMillis start) : wall_(start), steady_(SteadyTime{} + std::chrono::hours(1)) {}

UtcMillis SimClock::now() const {
  std::lock_guard lock(mu_);
  return std::chrono::floor<std::chrono::milliseconds>(wall_);
}

WallTime SimClock::wall() const {
  std::lock_guard lock(mu_);
  return wall_;
}

SteadyTime SimClock::steady_now() const {
  std::lock_guard lock(mu_);
  return steady_;
}

bool SimClock::wait_until(SteadyTime deadline, std::stop_token stop) const {
  std::unique_lock lock(mu_);
  Waiter me{deadline, stop};
  waiters_.push_back(&me);
  cv_.notify_all();
  const bool reached = cv_.wait(lock, stop, [&] { return steady_ >= deadline; });
  waiters_.remove(&me);
  cv_.notify_all();
  return reached;
}

void SimClock::advance(Duration d) {
  {
    std::lock_guard lock(mu_);
    wall_ += std::chrono::duration_cast<WallTime::duration>(d);
    steady_ += d;
  }
  cv_.notify_all();
}

void SimClock::set_wall(WallTime t) {
  std::lock_guard lock(mu_);
  wall_ = t;
}

void SimClock::hold() {
  std::lock_guard lock(mu_);
  ++holds_;
}

void SimClock::unhold() {
  {
    std::lock_guard lock(mu_);
    --holds_;
  }
  cv_.notify_all();
}

std::size_t SimClock::parked_locked() const {
  if (holds_ > 0) return 0;
  return static_cast<std::size_t>(std::count_if(waiters_.begin(), waiters_.end(), [&](const Waiter* w) {
    return w->deadline > steady_ && !w->stop.stop_requested();
  }));
}

std::size_t SimClock::parked() const {
  std::lock_guard lock(mu_);
  return parked_locked();
}

Duration SimClock::next_parked_in() const {
  std::lock_guard lock(mu_);
  Duration d = Duration::max();
  for (const Waiter* w : waiters_)
    if (w->deadline > steady_ && !w->stop.stop_requested()) d = std::min<Duration>(d, w->deadline - steady_);
  return d == Duration::max() ? Duration::zero() : d;
}

bool SimClock::await_parked(std::size_t n, std::chrono::milliseconds timeout) const {
  const auto until = std::chrono::steady_clock::now() + timeout;
  std::unique_lock lock(mu_);
  while (parked_locked() < n) {
    // A stop request is not notified here, so look again every millisecond.
    if (cv_.wait_for(lock, std::chrono::milliseconds(1)) == std::cv_status::timeout &&
        std::chrono::steady_clock::now() >= until)
      return parked_locked() >= n;
  }
  return true;
}

Duration SimClock::step(std::size_t n, Duration max) {
  REQUIRE_MESSAGE(await_parked(n), "SimClock: fewer than " << n << " threads ever parked");
  Duration d = max;
  {
    std::lock_guard lock(mu_);
    for (const Waiter* w : waiters_)
      if (w->deadline > steady_ && !w->stop.stop_requested()) d = std::min<Duration>(d, w->deadline - steady_);
  }
  advance(d);
  return d;
}

void SimClock::run_for(Duration d, std::size_t n) {
  const SteadyTime end = steady_now() + d;
  while (steady_now() < end) step(n, end - steady_now());
  REQUIRE_MESSAGE(await_parked(n), "SimClock: fewer than " << n << " threads parked again");
}

}  // namespace forgemeter::testing
