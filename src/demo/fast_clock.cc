#include "demo/fast_clock.h"

#include <algorithm>
#include <stdexcept>

namespace forgemeter::demo {

FastClock::FastClock(UtcMillis start, double speed)
    : start_wall_(start), start_steady_(std::chrono::steady_clock::now()), speed_(speed), real_base_(start_steady_) {
  if (!(speed > 0)) throw std::invalid_argument("FastClock: speed must be positive");
}

Duration FastClock::elapsed_locked() const {
  if (frozen_) return base_elapsed_;
  auto real = std::chrono::steady_clock::now() - real_base_;
  const Duration e = base_elapsed_ + Duration(static_cast<Duration::rep>(static_cast<double>(real.count()) * speed_));
  return pause_at_ ? std::min(e, *pause_at_) : e;
}

UtcMillis FastClock::now() const {
  std::lock_guard lock(mu_);
  return start_wall_ + std::chrono::floor<std::chrono::milliseconds>(elapsed_locked());
}

SteadyTime FastClock::steady_now() const {
  std::lock_guard lock(mu_);
  return start_steady_ + elapsed_locked();
}

bool FastClock::wait_until(SteadyTime deadline, std::stop_token stop) const {
  std::unique_lock lock(mu_);
  const Duration target = deadline - start_steady_;
  for (;;) {
    if (elapsed_locked() >= target) return true;
    if (stop.stop_requested()) return false;
    const std::uint64_t gen = generation_;
    auto changed = [&] { return generation_ != gen; };
    if (frozen_ || (pause_at_ && elapsed_locked() >= *pause_at_)) {
      parked_.push_back(&stop);
      cv_.wait(lock, stop, changed);
      parked_.erase(std::find(parked_.begin(), parked_.end(), &stop));
    } else {
      auto left = target - base_elapsed_;
      auto real_at = real_base_ + Duration(static_cast<Duration::rep>(static_cast<double>(left.count()) / speed_)) +
                     std::chrono::microseconds(50);
      cv_.wait_until(lock, stop, real_at, changed);
    }
  }
}

std::size_t FastClock::parked(const std::stop_token& stop) const {
  std::lock_guard lock(mu_);
  return static_cast<std::size_t>(std::count_if(parked_.begin(), parked_.end(), [&](auto* p) { return *p == stop; }));
}

void FastClock::freeze() {
  std::lock_guard lock(mu_);
  if (frozen_) return;
  base_elapsed_ = elapsed_locked();
  frozen_ = true;
  ++generation_;
  cv_.notify_all();
}

void FastClock::resume() {
  std::lock_guard lock(mu_);
  if (!frozen_) return;
  real_base_ = std::chrono::steady_clock::now();
  frozen_ = false;
  ++generation_;
  cv_.notify_all();
}

void FastClock::jump_to(UtcMillis t) {
  std::lock_guard lock(mu_);
  Duration want = t - start_wall_;
  Duration now = elapsed_locked();
  if (want <= now) return;
  base_elapsed_ = want;
  real_base_ = std::chrono::steady_clock::now();
  if (pause_at_ && want >= *pause_at_) pause_at_.reset();
  ++generation_;
  cv_.notify_all();
}

void FastClock::pause_at(UtcMillis t) {
  std::lock_guard lock(mu_);
  pause_at_ = std::max<Duration>(t - start_wall_, elapsed_locked());  // never backward
  ++generation_;
  cv_.notify_all();
}

}  // namespace forgemeter::demo
