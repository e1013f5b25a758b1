// body_feed.h — where a hop's request body comes from when the caller gives
// a Request::body_source: libcurl's read callback, asking the source for
// each piece as libcurl sends (the body is never held whole).
//
// With a known length exactly that many bytes are asked for: a source that
// ends sooner fails the upload; none is asked for past it. A source that
// says it failed, throws, or claims more bytes than the buffer holds fails
// the upload: libcurl ends the transfer (CURLE_ABORTED_BY_CALLBACK) and
// failed() says so, which tells it from a Request::stop.
//
// Thread-safety: one per pooled handle, used by the thread performing on it.
// Errors: never throws out of the callback.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "forgemeter/exchange.h"

namespace forgemeter::transport_detail {

class BodyFeed {
 public:
  // libcurl's CURLOPT_READFUNCTION, with this as its data.
  static std::size_t read(char* to, std::size_t size, std::size_t n, void* feed) noexcept;

  // Before each perform: `source` (nullptr: none, and the callback gives
  // nothing) must outlive it; `length` its body's length when known.
  void begin(const BodySource* source, std::optional<std::uint64_t> length) noexcept;

  bool failed() const noexcept { return failed_; }
  const std::string& failure() const noexcept { return failure_; }

 private:
  std::size_t take(char* to, std::size_t room) noexcept;
  std::size_t fail(const char* what, const char* detail = nullptr) noexcept;

  const BodySource* source_ = nullptr;
  std::optional<std::uint64_t> length_;
  std::uint64_t sent_ = 0;
  bool failed_ = false;
  std::string failure_;
};

}  // namespace forgemeter::transport_detail
