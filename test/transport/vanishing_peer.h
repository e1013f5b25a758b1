// A deliberately broken HTTP/1.1 peer for checking libcurl's own resends:
// on every connection it answers the first request (keep-alive) and, for the
// second, reads it and hangs up without a byte — the "dead reused connection"
// libcurl resends on a fresh one. It counts every request it read.
//
// Not a forge: the loopback forge (cpp-httplib) cannot hang up on a request it
// has read, which is exactly the behaviour under test. 127.0.0.1 only.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>

namespace fmtest {

class VanishingPeer {
 public:
  VanishingPeer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 16) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      throw std::runtime_error("vanishing peer: cannot listen");
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { run(); });
  }
  ~VanishingPeer() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }
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
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      if (read_request(c)) {
        static const std::string ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok";
        (void)::send(c, ok.data(), ok.size(), MSG_NOSIGNAL);
        (void)read_request(c);  // the second request on this connection: read, then hang up
      }
      ::close(c);
    }
  }

  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> read_{0};
  std::thread thread_;
};

}  // namespace fmtest
