// forgemeter/testing/manual_clock.h — a Clock (forgemeter/clock.h) that moves only when told to, for tests.
//
// advance() moves wall and steady time together and wakes the waiters whose
// deadline it reaches; set_wall() steps the wall clock alone (as an NTP step
// would), leaving steady time and waiters untouched.
//
// Stepping time deterministically needs to know when every worker sleeps: a
// thread counts as PARKED while it waits in wait_until() for a deadline still
// ahead of the clock and its stop token is not requested. (waiting() also
// counts a waiter that advance() released but that has not run yet, so "every
// worker is asleep again" cannot be told from it.) A worker the clock cannot
// see yet (a thread about to start) is covered by hold(): while any hold is
// out, nobody counts as parked, so no step can run ahead of it.
//
//   if (!clock.step(3)) fail();           // all 3 workers parked: jump to the earliest deadline
//   if (!clock.run_for(10min, 3)) fail(); // keep stepping until 10 minutes have passed
//
// Thread-safety: every method may be called from any thread at once. The
// real-time bounds (`timeout`) only keep a broken test from hanging.
#pragma once

#include "forgemeter/export.h"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <stop_token>
#include <vector>

#include "forgemeter/clock.h"

namespace forgemeter {

class FORGEMETER_API ManualClock final : public Clock {
 public:
  explicit ManualClock(UtcMillis start);

  UtcMillis now() const override;
  SteadyTime steady_now() const override;
  bool wait_until(SteadyTime deadline, std::stop_token stop) const override;

  WallTime wall() const;  // the wall time, not truncated
  void advance(Duration d);
  void set_wall(WallTime t);

  // Number of threads blocked in wait_until() right now.
  std::size_t waiting() const;
  // Blocks (in real time, at most `timeout`) until at least `n` threads wait;
  // returns whether they did. Lets a test step time only once a worker sleeps.
  bool await_waiting(std::size_t n, std::chrono::milliseconds timeout) const;

  void hold();  // until the matching unhold(), no thread counts as parked
  void unhold();
  std::size_t parked() const;
  // How far ahead the earliest parked deadline is (zero when none is parked).
  Duration next_parked_in() const;
  // Blocks (in real time, at most `timeout`) until at least `n` threads are
  // parked; returns whether they were.
  bool await_parked(std::size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(20)) const;
  // await_parked(n, timeout), then advances to the earliest parked deadline,
  // but by at most `max`. Returns the step, or nullopt (nothing advanced) when
  // fewer than `n` threads parked within `timeout`.
  [[nodiscard]] std::optional<Duration> step(std::size_t n, Duration max = std::chrono::hours(24 * 365),
                                             std::chrono::milliseconds timeout = std::chrono::seconds(20));
  // Steps until `d` has passed (the last step lands exactly on it), then waits
  // until the `n` threads have parked again: on true, all is quiet. False when
  // the `n` threads did not park within `timeout` at some step (time then
  // stays where the steps got to).
  [[nodiscard]] bool run_for(Duration d, std::size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(20));

 private:
  struct Waiter {
    SteadyTime deadline;
    std::stop_token stop;
  };
  std::size_t parked_locked() const;
  Duration next_parked_in_locked() const;

  mutable std::mutex mu_;
  mutable std::condition_variable_any cv_;
  WallTime wall_;
  SteadyTime steady_;
  mutable std::vector<const Waiter*> waiters_;
  int holds_ = 0;
};

}  // namespace forgemeter
