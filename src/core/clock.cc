#include "forgemeter/clock.h"

namespace forgemeter {
namespace {

class SystemClock final : public Clock {
 public:
  UtcMillis now() const override {
    return std::chrono::floor<std::chrono::milliseconds>(std::chrono::system_clock::now());
  }
  SteadyTime steady_now() const override { return std::chrono::steady_clock::now(); }
  bool wait_until(SteadyTime deadline, std::stop_token stop) const override {
    std::mutex mu;
    std::condition_variable_any cv;
    std::unique_lock lock(mu);
    // Returns on stop (woken by the stop token) or at the deadline.
    cv.wait_until(lock, stop, deadline, [] { return false; });
    return !stop.stop_requested();
  }
};

}  // namespace

Clock& system_clock() {
  static SystemClock* clock = new SystemClock;  // never destroyed: usable from static destructors
  return *clock;
}

ManualClock::ManualClock(UtcMillis start) : wall_(start), steady_(SteadyTime{} + std::chrono::hours(1)) {}

UtcMillis ManualClock::now() const {
  std::lock_guard lock(mu_);
  return std::chrono::floor<std::chrono::milliseconds>(wall_);
}

SteadyTime ManualClock::steady_now() const {
  std::lock_guard lock(mu_);
  return steady_;
}

bool ManualClock::wait_until(SteadyTime deadline, std::stop_token stop) const {
  std::unique_lock lock(mu_);
  ++waiting_;
  cv_.notify_all();  // wakes await_waiting()
  bool reached = cv_.wait(lock, stop, [&] { return steady_ >= deadline; });
  --waiting_;
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

void ManualClock::set_wall(UtcMillis t) {
  std::lock_guard lock(mu_);
  wall_ = t;
}

std::size_t ManualClock::waiting() const {
  std::lock_guard lock(mu_);
  return waiting_;
}

bool ManualClock::await_waiting(std::size_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return waiting_ >= n; });
}

}  // namespace forgemeter
