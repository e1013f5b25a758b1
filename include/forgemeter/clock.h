// forgemeter/clock.h — time, injected.
//
// Everything in forgemeter that reads the time or waits takes a Clock through
// its options, so tests drive time by hand (forgemeter/testing/manual_clock.h)
// and production uses the real one. A Clock has two faces:
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
#include <stop_token>
#include <utility>

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
