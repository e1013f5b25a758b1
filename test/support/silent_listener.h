// Test support: a TCP listener on 127.0.0.1 that accepts nothing and says
// nothing — a "server" that never answers, to prove connects are bounded.
// Not thread-safe; one owner.
#pragma once

namespace fmtest {

class SilentListener {
 public:
  SilentListener();  // throws std::runtime_error when it cannot listen
  ~SilentListener() { close(); }
  SilentListener(const SilentListener&) = delete;
  SilentListener& operator=(const SilentListener&) = delete;
  int port() const { return port_; }
  int fd() const { return fd_; }  // the listening socket, for a test that accepts on it itself
  void close();

 private:
  int fd_ = -1;
  int port_ = 0;
};

}  // namespace fmtest
