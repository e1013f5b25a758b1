// fast_clock.h — a Clock that runs N× real time, for the demo.
//
// Wall and steady faces move together, `speed` simulated seconds per real
// second, from `start`. freeze() stops both faces (waiters keep waiting) until
// resume(); pause_at() makes time stop by itself at an instant, however late
// the thread that set it runs; jump_to() moves time forward to an instant and
// wakes the waiters it reaches. The demo pauses time just before an hour's end
// so that every request of that hour is stamped inside it before it reads the
// forge's counts (a freeze() called on waking would come late on a loaded
// machine: at 1200x, 5 ms of scheduling delay is 6 simulated seconds).
// parked() tells how many threads wait while time stands still with a given
// stop token: the demo's hour end needs to know that every request left is
// waiting on the clock, none on the wire.
//
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <stop_token>
#include <vector>

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
  // Time reads at most `t` (or now, if later) until jump_to() reaches it or pause_at() moves it.
  void pause_at(UtcMillis t);
  void jump_to(UtcMillis t);  // forward only; a past instant changes nothing
  double speed() const { return speed_; }
  // How many threads are in wait_until() now with `stop` (the same stop state),
  // blocked while time stands still: they stay so until time moves or `stop` fires.
  std::size_t parked(const std::stop_token& stop) const;
  // The steady instant at which the wall face reads `t` (the faces move together).
  SteadyTime steady_at(UtcMillis t) const { return start_steady_ + (t - start_wall_); }

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
  std::optional<Duration> pause_at_;                    // simulated time since start where time stops by itself
  std::uint64_t generation_ = 0;                        // bumped on every freeze/resume/jump/pause
  mutable std::vector<const std::stop_token*> parked_;  // the waiters blocked while time stands still
};

}  // namespace forgemeter::demo
