// header_deadlines.h — cuts a client that takes too long to send a header
// block (slowloris: a byte a second keeps libmicrohttpd's inactivity timeout
// from ever firing, and each such client holds a connection).
//
// A connection's deadline starts when it is accepted (header_timeout) and
// again when an answer completes (the keep-alive wait, max of the idle and
// header timeouts); it is lifted when a whole header block has arrived. A
// thread of its own shuts down the socket of a connection past its
// deadline, which the server then closes as a client that went away.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <thread>
#include <unordered_map>

#include "core/mutex.h"
#include "core/thread_annotations.h"
#include "forgemeter/clock.h"

namespace forgemeter::serve {

class HeaderDeadlines {
 public:
  HeaderDeadlines(const Clock& clock, Duration header_timeout, Duration keep_alive_wait);
  ~HeaderDeadlines();  // stops the thread
  HeaderDeadlines(const HeaderDeadlines&) = delete;
  HeaderDeadlines& operator=(const HeaderDeadlines&) = delete;

  // `key` names the connection (its libmicrohttpd handle); `fd` its socket,
  // valid until closed() (the server calls closed() before it closes it).
  void accepted(const void* key, int fd, Duration header_timeout);
  void headers_read(const void* key);
  void answered(const void* key);
  void closed(const void* key);
  std::uint64_t cut() const;  // connections cut so far

 private:
  void run();
  struct Entry {
    int fd;
    SteadyTime deadline;  // SteadyTime::max(): headers read, none
  };
  const Clock& clock_;
  const Duration header_timeout_;
  const Duration keep_alive_wait_;
  mutable core_detail::Mutex mu_;
  std::condition_variable cv_;
  std::unordered_map<const void*, Entry> entries_ GUARDED_BY(mu_);
  std::uint64_t cut_ GUARDED_BY(mu_) = 0;
  bool stop_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace forgemeter::serve
