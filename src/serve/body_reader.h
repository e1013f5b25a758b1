// body_reader.h — a request body handed to its owner while it arrives: the
// server's threads push what the client sends, the owner's thread reads it.
//
// Bounded: past `buffer` bytes not yet read the connection is parked (it
// reads nothing more from the client) until the reader has taken half, so a
// client uploading faster than the owner forwards costs no memory past it.
// The end of the body, a client gone mid-way and the server stopping all
// wake a waiting reader. Thread-safety: every member function may be called
// from any thread. Errors: none thrown (but std::bad_alloc).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/mutex.h"
#include "core/thread_annotations.h"

namespace forgemeter::serve {

class BodyReader {
 public:
  BodyReader(std::optional<std::uint64_t> length, std::size_t buffer) : length_(length), buffer_(buffer) {}

  // The Content-Length the client gave, if any.
  std::optional<std::uint64_t> length() const noexcept { return length_; }
  // Up to `max` bytes into `out`, waiting for them: their count, 0 at the
  // body's end, -1 when the client went away or the server stopped.
  long read(char* out, std::size_t max);
  // Bytes read so far.
  std::uint64_t taken() const;

  // For the server's threads. Appends what arrived; false when the buffer
  // is now full and `park` was called (`wake` is called from read() once it
  // has room again).
  bool push(std::string_view bytes, const std::function<void()>& park, std::function<void()> wake);
  void finish();  // the whole body arrived
  void fail();    // the client went away, or the server stops: nothing more comes
  // Whether the owner stopped reading (it answered): what still arrives is dropped.
  void abandon();
  bool abandoned() const;

 private:
  const std::optional<std::uint64_t> length_;
  const std::size_t buffer_;
  mutable core_detail::Mutex mu_;
  std::condition_variable arrived_;
  std::string held_ GUARDED_BY(mu_);
  std::uint64_t taken_ GUARDED_BY(mu_) = 0;
  enum class State : std::uint8_t { open, finished, failed } state_ GUARDED_BY(mu_) = State::open;
  bool abandoned_ GUARDED_BY(mu_) = false;
  std::function<void()> wake_ GUARDED_BY(mu_);  // set while the connection is parked
};

}  // namespace forgemeter::serve
