#include "forgemeter/testing/manual_clock.h"

#include <algorithm>

namespace forgemeter {

ManualClock::ManualClock(UtcMillis start) : wall_(start), steady_(SteadyTime{} + std::chrono::hours(1)) {}

UtcMillis ManualClock::now() const {
  std::lock_guard lock(mu_);
  return std::chrono::floor<std::chrono::milliseconds>(wall_);
}

WallTime ManualClock::wall() const {
  std::lock_guard lock(mu_);
  return wall_;
}

SteadyTime ManualClock::steady_now() const {
  std::lock_guard lock(mu_);
  return steady_;
}

bool ManualClock::wait_until(SteadyTime deadline, std::stop_token stop) const {
  std::unique_lock lock(mu_);
  const Waiter me{deadline, stop};
  waiters_.push_back(&me);
  cv_.notify_all();  // wakes await_waiting() and await_parked()
  const bool reached = cv_.wait(lock, stop, [&] { return steady_ >= deadline; });
  std::erase(waiters_, &me);
  cv_.notify_all();
  return reached;
}

void ManualClock::advance(Duration d) {
  {
    std::lock_guard lock(mu_);
    wall_ += std::chrono::duration_cast<WallTime::duration>(d);
    steady_ += d;
  }
  cv_.notify_all();
}

void ManualClock::set_wall(WallTime t) {
  std::lock_guard lock(mu_);
  wall_ = t;
}

std::size_t ManualClock::waiting() const {
  std::lock_guard lock(mu_);
  return waiters_.size();
}

bool ManualClock::await_waiting(std::size_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return waiters_.size() >= n; });
}

void ManualClock::hold() {
  std::lock_guard lock(mu_);
  ++holds_;
}

void ManualClock::unhold() {
  {
    std::lock_guard lock(mu_);
    --holds_;
  }
  cv_.notify_all();
}

std::size_t ManualClock::parked_locked() const {
  if (holds_ > 0) return 0;
  return static_cast<std::size_t>(std::count_if(waiters_.begin(), waiters_.end(), [&](const Waiter* w) {
    return w->deadline > steady_ && !w->stop.stop_requested();
  }));
}

std::size_t ManualClock::parked() const {
  std::lock_guard lock(mu_);
  return parked_locked();
}

Duration ManualClock::next_parked_in_locked() const {
  Duration d = Duration::max();
  for (const Waiter* w : waiters_)
    if (w->deadline > steady_ && !w->stop.stop_requested()) d = std::min<Duration>(d, w->deadline - steady_);
  return d == Duration::max() ? Duration::zero() : d;
}

Duration ManualClock::next_parked_in() const {
  std::lock_guard lock(mu_);
  return next_parked_in_locked();
}

bool ManualClock::await_parked(std::size_t n, std::chrono::milliseconds timeout) const {
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

std::optional<Duration> ManualClock::step(std::size_t n, Duration max, std::chrono::milliseconds timeout) {
  if (!await_parked(n, timeout)) return std::nullopt;
  Duration d;
  {
    std::lock_guard lock(mu_);
    const Duration next = next_parked_in_locked();
    d = next == Duration::zero() ? max : std::min(max, next);
  }
  advance(d);
  return d;
}

bool ManualClock::run_for(Duration d, std::size_t n, std::chrono::milliseconds timeout) {
  const SteadyTime end = steady_now() + d;
  while (steady_now() < end)
    if (!step(n, end - steady_now(), timeout)) return false;
  return await_parked(n, timeout);
}

}  // namespace forgemeter
