// canned_answer.h — a listener on 127.0.0.1 that answers one HTTP request
// with bytes given verbatim: for answers no HTTP server library would write
// (a NUL inside a header field), which the loopback forge cannot send.
#pragma once

#include <string>
#include <thread>

namespace fmtest {

class CannedAnswer {
 public:
  // Listens now; answers the first connection's request (read up to its
  // blank line) with `bytes`, then closes. Throws std::runtime_error when it
  // cannot listen.
  explicit CannedAnswer(std::string bytes);
  ~CannedAnswer();  // stops waiting for a connection that never came
  CannedAnswer(const CannedAnswer&) = delete;
  CannedAnswer& operator=(const CannedAnswer&) = delete;

  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }

 private:
  int listener_ = -1, port_ = 0;
  std::jthread thread_;
};

}  // namespace fmtest
