// test/lease/sim_clock.h — a manual clock that knows when everyone is asleep.
//
// Like forgemeter::ManualClock (time moves only when told), plus what the
// campaign tests need to step time deterministically: a thread counts as
// PARKED while it waits in wait_until() for a deadline still ahead of the
// clock (and its stop token is not requested). ManualClock::waiting() also
// counts a waiter that advance() has already released but that has not run
// yet, so "every campaign is asleep again" cannot be told from it. A thread
// the clock cannot see (a term's work, about to start) holds it: while any
// hold is out, nobody counts as parked, so no step can run ahead of it.
//
//   clock.step(3);              // all 3 campaigns parked: jump to the earliest deadline
//   clock.run_for(10min, 3);    // keep stepping until 10 minutes have passed
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <list>
#include <mutex>

#include "forgemeter/clock.h"

namespace forgemeter::testing {

class SimClock final : public Clock {
 public:
  explicit SimClock(UtcMillis start);

  UtcMillis now() const override;
  SteadyTime steady_now() const override;
  bool wait_until(SteadyTime deadline, std::stop_token stop) const override;

  WallTime wall() const;  // the untruncated wall time
  void advance(Duration d);
  void set_wall(WallTime t);  // steps the wall alone (an NTP step)

  void hold();  // until the matching unhold(), no thread counts as parked
  void unhold();

  std::size_t parked() const;
  // How far ahead the earliest parked deadline is (zero when none is parked).
  Duration next_parked_in() const;
  // Blocks in real time (at most `timeout`) until at least n threads are parked.
  bool await_parked(std::size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(20)) const;
  // await_parked(n) (failing the test if they never park), then advances to
  // the earliest parked deadline, but by at most `max`. Returns the step.
  Duration step(std::size_t n, Duration max = std::chrono::hours(24 * 365));
  // Steps until `d` has passed (the last step lands exactly on it), then
  // waits until the n threads have parked again: on return all is quiet.
  void run_for(Duration d, std::size_t n);

 private:
  struct Waiter {
    SteadyTime deadline;
    std::stop_token stop;
  };
  std::size_t parked_locked() const;

  mutable std::mutex mu_;
  mutable std::condition_variable_any cv_;
  WallTime wall_;
  SteadyTime steady_;
  mutable std::list<Waiter*> waiters_;
  int holds_ = 0;
};

}  // namespace forgemeter::testing
