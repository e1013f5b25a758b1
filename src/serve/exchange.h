// exchange.h — one request as the serving room hands it to its owner, and
// the Reply through which the owner answers it, now or later, whole or as a
// stream.
//
// A Reply is a cheap handle (copies share one exchange) that may be kept
// and used from any thread: answer() once, or start_stream() then write()
// and end(). Whatever comes first wins; later calls are ignored and return
// false, as every call does once the client is gone. A Reply dropped
// without an answer answers 500 (a handler's bug must not hang a client).
// Thread-safety: every Reply method may be called from any thread at once.
// Errors: none thrown (but std::bad_alloc).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace forgemeter::serve {

using Field = std::pair<std::string, std::string>;  // a header: name, value

class BodyReader;  // body_reader.h

struct ServeRequest {
  std::string method;
  std::string path;   // decoded by nothing: as sent, without the query
  std::string query;  // after '?', as sent; empty when none
  std::vector<Field> headers;
  std::string body;  // whole, within ServerOptions::max_body_bytes; empty when streamed
  // Set when ServerOptions::stream_body chose to stream this request's body:
  // read it from here as it arrives (the handler is called before it has).
  std::shared_ptr<BodyReader> body_reader;
  std::string peer;  // the client's address, for logs
  bool tls = false;

  // The first value of header `name` (any ASCII case), or nullopt.
  std::optional<std::string_view> header(std::string_view name) const noexcept;
  // Content-Length's value, saturated past 2^60 (as past too large for
  // any bound, a value that is not digits too), or nullopt when none.
  std::optional<std::uint64_t> content_length() const noexcept;
};

class Exchange;

class Reply {
 public:
  explicit Reply(std::shared_ptr<Exchange> exchange) : exchange_(std::move(exchange)) {}

  bool answer(int status, std::vector<Field> headers, std::string body);
  // A response whose body follows in write()s, sent chunked; the connection
  // is never cut as idle while the stream is open.
  bool start_stream(int status, std::vector<Field> headers);
  bool write(std::string_view bytes);
  // As write(), but while the stream's buffer is full it waits up to
  // `patience` for the client to take some, instead of refusing at once.
  bool write_within(std::string_view bytes, std::chrono::milliseconds patience);
  bool end();
  // Ends a stream as broken: the client sees the connection cut, never a
  // body passed off as whole (its source failed mid-way).
  bool abort();
  // Whether the client went away (a stream's writes then go nowhere).
  bool gone() const noexcept;
  // A field of this request's access-log record (lane, cache status, ...).
  void log_field(std::string name, std::string value);

 private:
  std::shared_ptr<Exchange> exchange_;
};

}  // namespace forgemeter::serve
