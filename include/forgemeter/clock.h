// forgemeter/clock.h — time, injected.
//
// Everything in forgemeter that reads the time or waits takes a Clock through
// its options, so tests drive time by hand and production uses the real one.
// A Clock has two faces:
//   * now()        — UTC wall time in milliseconds: what hourly buckets and
//                    lease stamps are made of;
//   * steady_now() — a monotonic reading: what deadlines are measured on, so a
//                    wall-clock step can neither extend nor cut one short.
//
// Thread-safety: every Clock method may be called from any thread at once.
// Ownership: options hold a `Clock*` that they do not own; the clock must
// outlive whatever was given it. nullptr in options means system_clock().
#pragma once

#include "forgemeter/export.h"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <stop_token>
#include <utility>
#include <vector>

namespace forgemeter {

using UtcMillis = std::chrono::sys_time<std::chrono::milliseconds>;
using WallTime = std::chrono::system_clock::time_point;  // finer than UtcMillis
using SteadyTime = std::chrono::steady_clock::time_point;
using Duration = std::chrono::nanoseconds;

class FORGEMETER_API Clock {
 public:
  virtual ~Clock() = default;

  // UTC wall time, truncated to the millisecond.
  virtual UtcMillis now() const = 0;

  // Monotonic time; never goes backward.
  virtual SteadyTime steady_now() const = 0;

  // Blocks until steady_now() >= deadline (returns true) or until `stop` is
  // requested (returns false, promptly). A deadline already passed returns true
  // at once.
  virtual bool wait_until(SteadyTime deadline, std::stop_token stop) const = 0;
};

// The real clocks (std::chrono::system_clock and steady_clock). Never destroyed.
FORGEMETER_API Clock& system_clock();

// A clock that moves only when told to, for tests.
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
// The real-time bounds (`timeout`) only keep a broken test from hanging.
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

// A point on a clock's steady face by which a call must have answered, and
// the caller's stop: once `stop` is requested the caller no longer waits for
// the answer, and a call honouring it gives up at once (a lease store answers
// `no_answer`, forgemeter/lease.h). A default stop_token never stops.
struct FORGEMETER_API Deadline {
  const Clock* clock = &system_clock();
  SteadyTime at{};
  std::stop_token stop{};

  static Deadline after(const Clock& c, Duration d, std::stop_token stop = {}) {
    return {&c, c.steady_now() + d, std::move(stop)};
  }
  bool passed() const { return clock->steady_now() >= at; }  // the time only
  bool stopped() const { return stop.stop_requested(); }
  bool over() const { return stopped() || passed(); }  // either: the call must end
  Duration remaining() const {
    auto r = at - clock->steady_now();
    return r > Duration::zero() ? std::chrono::duration_cast<Duration>(r) : Duration::zero();
  }
};

}  // namespace forgemeter
