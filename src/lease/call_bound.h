// Internal: the bound of one store call (PostgreSQL's, etcd's), and waiting
// on a socket within it.
//
// A CallBound is a call's Deadline measured on two faces — the Deadline's
// clock and the real monotonic clock (a ManualClock that never moves while a
// call waits must not hang it) — plus the Deadline's stop: once stop is
// requested, passed() is true and a wait_socket() in progress returns at once
// (an eventfd, written by a stop_callback, is polled beside the socket).
//
// Thread-safety: one call's thread uses it; the stop may come from any thread.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <stop_token>

#include "forgemeter/clock.h"

namespace forgemeter::lease_detail {

class CallBound {
 public:
  explicit CallBound(const Deadline& d);
  ~CallBound();
  CallBound(const CallBound&) = delete;
  CallBound& operator=(const CallBound&) = delete;

  // The time has passed on either face, or the caller stopped.
  bool passed() const { return stopped() || deadline_.passed() || std::chrono::steady_clock::now() >= real_at_; }
  bool stopped() const { return deadline_.stopped(); }
  // Milliseconds left for poll(), rounded up so a wait never ends early.
  int poll_ms() const;
  // Readable once the stop was requested; -1 when the call cannot be stopped.
  int stop_fd() const { return stop_fd_; }
  const Deadline& deadline() const { return deadline_; }
  // The same bound on the real clocks alone (system_clock(), the time left on
  // the nearer face) with the same stop: for a helper thread that may outlive
  // the call, and so must not read the caller's clock.
  Deadline on_real_clock() const;

 private:
  Deadline deadline_;
  SteadyTime real_at_;
  int stop_fd_ = -1;
  std::optional<std::stop_callback<std::function<void()>>> on_stop_;
};

enum class Ready { ready, timed_out, stopped, failed };

// Waits until `fd` is readable (and/or writable), the time passes or the
// caller stops.
Ready wait_socket(int fd, bool for_read, bool for_write, const CallBound& bound);

}  // namespace forgemeter::lease_detail
