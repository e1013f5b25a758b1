// fast_clock.h — a Clock that runs N× real time, for the demo.
//
// Wall and steady faces move together, `speed` simulated seconds per real
// second, from `start`. freeze() stops both faces (waiters keep waiting) until
// resume(); jump_to() moves time forward to an instant and wakes the waiters
// it reaches. The demo freezes time at an hour's end so that every request of
// that hour is stamped inside it before it reads the forge's counts.
//
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <condition_variable>
#include <mutex>

#include "forgemeter/clock.h"

namespace forgemeter::demo {

class FastClock final : public Clock {
 public:
  FastClock(UtcMillis start, double speed);

  UtcMillis now() const override;
  SteadyTime steady_now() const override;
  bool wait_until(SteadyTime deadline, std::stop_token stop) const override;

  void freeze();
  void resume();
  void jump_to(UtcMillis t);  // forward only; a past instant changes nothing
  double speed() const { return speed_; }

 private:
  Duration elapsed_locked() const;  // simulated time since start

  const UtcMillis start_wall_;
  const SteadyTime start_steady_;
  const double speed_;
  mutable std::mutex mu_;
  mutable std::condition_variable_any cv_;
  std::chrono::steady_clock::time_point real_base_;
  Duration base_elapsed_{};
  bool frozen_ = false;
  std::uint64_t generation_ = 0;  // bumped on every freeze/resume/jump
};

}  // namespace forgemeter::demo
