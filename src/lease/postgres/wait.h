// Internal: the bound of one store call, and waiting on a socket within it.
#pragma once

#include <chrono>

#include "forgemeter/clock.h"

namespace forgemeter::pg {

// A call's Deadline, also measured on the real monotonic clock: the caller's
// clock may be a ManualClock that never moves while the call waits, and the
// call must still end. passed() is true when either face has passed.
class CallBound {
 public:
  explicit CallBound(const Deadline& d)
      : deadline_(d), real_at_(std::chrono::steady_clock::now() + d.remaining()) {}

  bool passed() const { return deadline_.passed() || std::chrono::steady_clock::now() >= real_at_; }
  // Milliseconds left for poll(), rounded up so a wait never ends early.
  int poll_ms() const;

 private:
  Deadline deadline_;
  SteadyTime real_at_;
};

enum class Ready { ready, timed_out, failed };

// Waits until `fd` is readable (and/or writable) or the bound passes.
Ready wait_socket(int fd, bool for_read, bool for_write, const CallBound& bound);

}  // namespace forgemeter::pg
