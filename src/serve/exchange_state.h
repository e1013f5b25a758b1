// exchange_state.h — what the server keeps of one request between the
// callbacks libmicrohttpd makes on its threads and the Reply an owner uses
// on any thread: the request, the answer or stream to send, and whether the
// connection is parked (suspended) waiting for them.
//
// One mutex orders it all: an answer stored and a park decided under it
// can never miss each other (an answer never waits on a parked connection
// nobody will wake). `wake` resumes the parked connection; it is cleared
// when the connection completes, so nothing touches a connection that is
// gone. Thread-safety: every member function may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "core/thread_annotations.h"
#include "forgemeter/clock.h"
#include "serve/exchange.h"

namespace forgemeter::serve {

class Exchange {
 public:
  enum class Phase : std::uint8_t { waiting, answered, streaming, ended, aborted };

  Exchange(ServeRequest request, std::size_t max_stream_buffer, UtcMillis at, SteadyTime started)
      : at(at), started(started), request_(std::move(request)), max_stream_buffer_(max_stream_buffer) {}

  const UtcMillis at;        // when its target arrived
  const SteadyTime started;  // the same, for its duration

  ServeRequest& request() noexcept { return request_; }

  bool answer(int status, std::vector<Field> headers, std::string body);
  bool start_stream(int status, std::vector<Field> headers);
  bool write(std::string_view bytes);
  bool write_within(std::string_view bytes, Duration patience);
  bool end();
  bool abort();
  bool gone() const;
  void log_field(std::string name, std::string value);

  // For the server's threads.
  // True the first time only: the owner is asked once per request.
  bool first_dispatch() noexcept { return !std::exchange(dispatched_, true); }
  // How to park the connection (called on its thread) and wake it (any thread).
  void set_connection(std::function<void()> park, std::function<void()> wake);
  // Whether an answer or stream is ready to hand to the connection; when
  // not, the connection is parked (under the lock) until one is.
  bool ready_or_park();
  struct Head {
    Phase phase;
    int status;
    std::vector<Field> headers;
    std::string body;
  };
  Head take_head();
  // A stream's next bytes into `out` (at most `max`): their count, 0 with
  // the connection parked when none are ready, or -1 at its end (-2: gone).
  long read_stream(char* out, std::size_t max);
  // The connection completed (client_gone: before the whole answer was sent).
  void completed(bool client_gone);
  std::vector<std::pair<std::string, std::string>> take_log_fields();
  int status() const;
  std::uint64_t bytes() const;
  bool streaming() const;

 private:
  void wake_locked() REQUIRES(mu_);
  // An answer made while the body still arrives: the rest is not read.
  void abandon_body() REQUIRES(mu_);

  ServeRequest request_;
  const std::size_t max_stream_buffer_;
  bool dispatched_ = false;  // the connection's thread only

 public:
  bool probe_only = false;    // set before dispatch, on the connection's thread
  std::uint64_t dropped = 0;  // of a streamed body after an early answer; the connection's thread only
  mutable core_detail::Mutex mu_;
  Phase phase_ GUARDED_BY(mu_) = Phase::waiting;
  int status_ GUARDED_BY(mu_) = 0;
  std::vector<Field> headers_ GUARDED_BY(mu_);
  std::string body_ GUARDED_BY(mu_);  // an answer's body, or a stream's bytes not yet sent
  bool parked_ GUARDED_BY(mu_) = false;
  bool gone_ GUARDED_BY(mu_) = false;
  std::uint64_t bytes_ GUARDED_BY(mu_) = 0;
  std::function<void()> park_ GUARDED_BY(mu_);
  std::function<void()> wake_ GUARDED_BY(mu_);
  std::vector<std::pair<std::string, std::string>> fields_ GUARDED_BY(mu_);
  std::condition_variable room_;  // a stream's buffer has room again, or the client went
};

}  // namespace forgemeter::serve
