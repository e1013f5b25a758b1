#include "forgemeter/clock.h"

#include <condition_variable>
#include <mutex>

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

}  // namespace forgemeter
