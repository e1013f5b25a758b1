#include "fetch_support.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "forgemeter/lines.h"
#include "forgemeter_bin.h"

namespace fmtest {

using forgemeter::CountLine;
using forgemeter::LineScan;
using forgemeter::scan_line;

std::vector<std::string> fetch_args(const forgemeter::testforge::Forge& forge) {
  std::vector<std::string> a{forgemeter_bin(), "fetch"};
  for (const auto& r : forge.resolve()) {
    a.emplace_back("--resolve");
    a.push_back(r);
  }
  return a;
}

std::map<std::string, std::uint64_t> meter_counts(const std::string& err, std::uint64_t& lines) {
  std::map<std::string, std::uint64_t> by_host;
  std::istringstream in(err);
  std::string line;
  while (std::getline(in, line)) {
    LineScan s = scan_line(line);
    if (s.kind != LineScan::Kind::line) continue;
    ++lines;
    if (auto* c = std::get_if<CountLine>(&s.line))
      for (const auto& e : c->entries) by_host[e.host] += e.count;
  }
  return by_host;
}

bool only_meter_lines(const std::string& err) {
  std::istringstream in(err);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    if (scan_line(line).kind != LineScan::Kind::line) return false;
    ++n;
  }
  return n > 0;
}

namespace {

// A listening socket's accept queue: its length and its limit (TCP_INFO).
std::pair<std::uint32_t, std::uint32_t> accept_queue(int listener) {
  tcp_info info{};
  socklen_t len = sizeof info;
  if (::getsockopt(listener, IPPROTO_TCP, TCP_INFO, &info, &len) != 0)
    throw std::runtime_error("FullListener: no TCP_INFO");
  return {info.tcpi_unacked, info.tcpi_sacked};
}

}  // namespace

FullListener::FullListener() {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(listener_, 1) != 0 ||
      ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error("FullListener: cannot listen on 127.0.0.1");
  port_ = ntohs(addr.sin_port);
  // Linux drops a SYN once the queue holds more than its limit. Each
  // connection joins the queue as its ACK is processed (by the time connect
  // returns, or nearly): the next connects only once it is there, so that
  // none meets a half-open one (without syncookies that SYN would be dropped).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    const auto [length, limit] = accept_queue(listener_);
    if (length > limit) break;
    if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("FullListener: the queue never filled");
    if (queued_.size() > length) {
      std::this_thread::yield();
      continue;
    }
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error("FullListener: no socket");
    queued_.push_back(fd);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0)
      throw std::runtime_error("FullListener: cannot queue a connection");
  }
}

FullListener::~FullListener() {
  for (const int fd : queued_) ::close(fd);
  ::close(listener_);
}

}  // namespace fmtest
