#include "canned_answer.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace fmtest {

CannedAnswer::CannedAnswer(std::string bytes) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(listener_, 4) != 0 ||
      ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error("CannedAnswer: cannot listen on 127.0.0.1");
  port_ = ntohs(addr.sin_port);
  thread_ = std::jthread([this, bytes = std::move(bytes)](std::stop_token stop) {
    pollfd p{listener_, POLLIN, 0};
    while (!stop.stop_requested() && ::poll(&p, 1, 50) <= 0) {
    }
    if (stop.stop_requested()) return;
    const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;
    std::string got;
    char buf[4096];
    while (got.find("\r\n\r\n") == std::string::npos) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n <= 0) break;
      got.append(buf, static_cast<std::size_t>(n));
    }
    for (std::size_t at = 0; at < bytes.size();) {
      const ssize_t n = ::write(fd, bytes.data() + at, bytes.size() - at);
      if (n <= 0) break;
      at += static_cast<std::size_t>(n);
    }
    ::close(fd);
  });
}

CannedAnswer::~CannedAnswer() {
  thread_.request_stop();
  if (thread_.joinable()) thread_.join();
  ::close(listener_);
}

}  // namespace fmtest
