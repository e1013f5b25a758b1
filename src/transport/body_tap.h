// body_tap.h — where a hop's body goes (libcurl's write callback): kept whole
// for Response::body, or, with a Request::on_body, handed to that sink once
// the answer's head shows the hop is final (docs/transport-internals.md).
//
// On a hop's first body bytes, with a sink: a redirect (a 3xx with a
// Location field) the Transport follows is dropped; an answer the retry policy may try
// again is held (up to kHeldBodyBytes; past that it is streamed, and the hop
// is no longer retried: its bytes went out); anything else is streamed.
// Beside a streamed body its first kBodyPrefixBytes stay in `body`: what
// classing an answer reads (a secondary limit's text, GraphQL's errors).
//
// Thread-safety: one per pooled handle, used by the thread performing on it.
// Errors: never throws out of the callback (a sink's exception is refusal).
#pragma once

#include <curl/curl.h>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "forgemeter/exchange.h"
#include "transport/exchange/body_sink.h"

namespace forgemeter::transport_detail {

inline constexpr std::size_t kBodyPrefixBytes = std::size_t{64} << 10;
inline constexpr std::size_t kHeldBodyBytes = std::size_t{64} << 10;

class BodyTap {
 public:
  // Without a sink, the whole body; with one, its prefix (or what is held).
  std::string body;

  // libcurl's CURLOPT_WRITEFUNCTION, with this as its data.
  static std::size_t write(char* data, std::size_t size, std::size_t n, void* tap) noexcept;

  // What the hop at hand may come to, for where its body goes.
  struct Rules {
    bool retries = false;     // the retry policy may still try this hop again
    bool idempotent = false;  // its method's kind
    bool follows = false;     // a redirect is followed (its body is no answer's)
  };
  // Before each perform on `h`: `sink` (nullptr: none) must outlive it;
  // `headers` is the answer block being read.
  void begin(CURL* h, const BodySink* sink, const Headers* headers, Rules rules) noexcept;
  // The held body, if any, handed to the sink: the hop is final. false when
  // the sink refused (refusal() says why).
  bool flush() noexcept;
  // The held body dropped: the hop is retried.
  void drop() noexcept;

  bool delivered() const noexcept { return delivered_; }  // some bytes reached the sink
  bool refused() const noexcept { return refused_; }
  const std::string& refusal() const noexcept { return refusal_; }
  bool streaming() const noexcept { return sink_ != nullptr; }

 private:
  enum class Mode { undecided, keep, drop, hold, stream };
  Mode decide() const noexcept;
  bool pass(std::string_view bytes) noexcept;  // to the sink, the prefix kept
  bool pass_held() noexcept;                   // the held body to the sink, the prefix kept
  std::size_t take(char* data, std::size_t len) noexcept;

  CURL* handle_ = nullptr;
  const BodySink* sink_ = nullptr;
  const Headers* headers_ = nullptr;
  Rules rules_;
  Mode mode_ = Mode::keep;
  int status_ = kNoAnswer;
  bool delivered_ = false;
  bool refused_ = false;
  std::string refusal_;
};

}  // namespace forgemeter::transport_detail
