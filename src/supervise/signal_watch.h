// signal_watch.h — SIGINT, SIGTERM and SIGHUP taken on a thread of their own.
//
// The constructor blocks the three signals in the calling thread (and so in every
// thread it starts afterwards: construct it before any) and waits for them on
// a thread of its own, which calls `on_signal(sig)` for each one that comes,
// outside any signal handler (so it may lock, write and flush).
//
// Thread-safety: on_signal runs on the watch's thread. Errors: none; the
// destructor stops and joins the thread (and leaves the signals blocked).
#pragma once

#include <signal.h>

#include <atomic>
#include <functional>
#include <thread>

namespace forgemeter::supervise {

class SignalWatch {
 public:
  explicit SignalWatch(std::function<void(int)> on_signal);
  ~SignalWatch();
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;

 private:
  std::function<void(int)> on_signal_;
  sigset_t set_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace forgemeter::supervise
