// A deliberately broken HTTP/1.1 peer for checking libcurl's own resends:
// on every connection it answers the first request (keep-alive) and, for the
// second, reads it and hangs up without a byte — the "dead reused connection"
// libcurl resends on a fresh one. It counts every request it read.
//
// Not a forge: the loopback forge (cpp-httplib) cannot hang up on a request it
// has read, which is exactly the behaviour under test. 127.0.0.1 only.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>

#include "support/silent_listener.h"

namespace fmtest {

class VanishingPeer {
 public:
  VanishingPeer() : thread_([this] { run(); }) {}
  ~VanishingPeer() {
    stop_ = true;
    thread_.join();
  }
  int port() const { return listener_.port(); }
  int requests_read() const { return read_.load(); }

 private:
  // Reads one request head (no bodies are sent to this peer); false on EOF/timeout.
  bool read_request(int c) {
    std::string got;
    char buf[4096];
    while (got.find("\r\n\r\n") == std::string::npos) {
      pollfd p{c, POLLIN, 0};
      if (::poll(&p, 1, 2000) <= 0) return false;
      const ssize_t n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) return false;
      got.append(buf, static_cast<std::size_t>(n));
    }
    ++read_;
    return true;
  }
  void run() {
    while (!stop_) {
      pollfd p{listener_.fd(), POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int c = ::accept(listener_.fd(), nullptr, nullptr);
      if (c < 0) continue;
      if (read_request(c)) {
        static const std::string ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok";
        (void)::send(c, ok.data(), ok.size(), MSG_NOSIGNAL);
        (void)read_request(c);  // the second request on this connection: read, then hang up
      }
      ::close(c);
    }
  }

  SilentListener listener_;  // 127.0.0.1, ephemeral port; this peer accepts on it
  std::atomic<bool> stop_{false};
  std::atomic<int> read_{0};
  std::thread thread_;
};

}  // namespace fmtest
