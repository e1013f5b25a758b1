#include "transport/body_tap.h"

#include <algorithm>

#include "transport/redirect_policy.h"

namespace forgemeter::transport_detail {

void BodyTap::begin(CURL* h, const BodySink* sink, const Headers* headers, Rules rules) noexcept {
  handle_ = h;
  sink_ = sink;
  headers_ = headers;
  rules_ = rules;
  mode_ = sink ? Mode::undecided : Mode::keep;
  status_ = kNoAnswer;
  delivered_ = false;
  refused_ = false;
  refusal_.clear();
  body.clear();
}

// The answer's head is complete when its first body bytes come.
BodyTap::Mode BodyTap::decide() const noexcept {
  // libcurl makes its redirect URL at the transfer's end: the field says it now.
  if (rules_.follows && is_redirect(status_) && headers_ && headers_->find("Location")) return Mode::drop;
  const bool limited = status_ == 403 || status_ == 429;
  const bool gateway = status_ == 502 || status_ == 503 || status_ == 504;
  return rules_.retries && (limited || (rules_.idempotent && gateway)) ? Mode::hold : Mode::stream;
}

bool BodyTap::pass(std::string_view bytes) noexcept {
  if (body.size() < kBodyPrefixBytes) {
    try {
      body.append(bytes.substr(0, kBodyPrefixBytes - body.size()));
    } catch (...) {
      // out of memory: the answer is classed on less
    }
  }
  delivered_ = true;
  if (deliver(*sink_, BodyChunk{status_, headers_, bytes}, refusal_)) return true;
  refused_ = true;
  return false;
}

// The held body to the sink, in place: its prefix stays in `body` as pass()
// keeps one. (Moving it out to a local first made gcc 12 at -O2 warn
// -Warray-bounds on the moved-to string's small buffer, a path a held body
// past 64 KiB never takes.)
bool BodyTap::pass_held() noexcept {
  delivered_ = true;
  const bool taken = deliver(*sink_, BodyChunk{status_, headers_, body}, refusal_);
  if (body.size() > kBodyPrefixBytes) body.resize(kBodyPrefixBytes);  // shrinks: no allocation
  if (!taken) refused_ = true;
  return taken;
}

std::size_t BodyTap::take(char* data, std::size_t len) noexcept {
  const std::string_view bytes(data, len);
  if (mode_ == Mode::undecided) {
    long code = 0;
    curl_easy_getinfo(handle_, CURLINFO_RESPONSE_CODE, &code);
    status_ = static_cast<int>(code);
    mode_ = decide();
  }
  switch (mode_) {
    case Mode::keep:
    case Mode::hold: try { body.append(bytes);
      } catch (...) {
        return 0;  // out of memory: libcurl ends the transfer with a write error
      }
      if (mode_ == Mode::hold && body.size() > kHeldBodyBytes) {
        mode_ = Mode::stream;  // too long to hold: streamed, and no longer retried
        if (!pass_held()) return 0;
      }
      return len;
    case Mode::drop: return len;
    case Mode::stream:
    case Mode::undecided: break;
  }
  return pass(bytes) ? len : 0;
}

std::size_t BodyTap::write(char* data, std::size_t size, std::size_t n, void* tap) noexcept {
  return static_cast<BodyTap*>(tap)->take(data, size * n);
}

bool BodyTap::flush() noexcept {
  if (mode_ != Mode::hold || !sink_) return !refused();
  mode_ = Mode::stream;
  if (body.empty()) return true;
  return pass_held();
}

void BodyTap::drop() noexcept {
  if (mode_ == Mode::hold) body.clear();
}

}  // namespace forgemeter::transport_detail
