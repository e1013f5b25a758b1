#include "bulk_peer.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

namespace fmtest {
namespace {

bool send_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

std::string answer(const std::string& body) {
  return "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

}  // namespace

std::uint64_t bulk_digest(const char* bytes, std::size_t n, std::uint64_t hash) {
  for (std::size_t i = 0; i < n; ++i) hash = (hash ^ static_cast<unsigned char>(bytes[i])) * 1099511628211ULL;
  return hash;
}

BulkPeer::BulkPeer() {
  accepter_ = std::thread([this] {
    while (!stop_) {
      pollfd p{listener_.fd(), POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      const int conn = ::accept(listener_.fd(), nullptr, nullptr);
      if (conn >= 0) workers_.emplace_back([this, conn] { serve(conn); });
    }
  });
}

BulkPeer::~BulkPeer() {
  stop_ = true;
  accepter_.join();
  for (std::thread& t : workers_) t.join();
}

std::string BulkPeer::url() const { return "http://127.0.0.1:" + std::to_string(listener_.port()); }

void BulkPeer::serve(int conn) {
  std::string head;
  char buf[65536];
  while (head.find("\r\n\r\n") == std::string::npos) {
    const ssize_t n = ::recv(conn, buf, sizeof buf, 0);
    if (n <= 0) return void(::close(conn));
    head.append(buf, static_cast<std::size_t>(n));
  }
  const std::size_t end = head.find("\r\n\r\n") + 4;
  std::string body = head.substr(end);
  head.resize(end);
  if (head.rfind("GET /download/", 0) == 0) {
    const std::uint64_t size = std::stoull(head.substr(14));
    const std::string top =
        "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n"
        "Content-Length: " +
        std::to_string(size) + "\r\n\r\n";
    bool ok = send_all(conn, top.data(), top.size());
    std::uint64_t at = 0;
    for (; ok && at < size && !stop_; at += sizeof buf) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof buf, size - at));
      for (std::size_t i = 0; i < n; ++i) buf[i] = bulk_byte(at + i);
      ok = send_all(conn, buf, n);
    }
    if (!ok) {
      cut_bytes_ += at;
      ++cut_;
    }
  } else {
    std::string lower = head;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    const std::size_t cl = lower.find("content-length:");
    const std::uint64_t size = cl == std::string::npos ? 0 : std::stoull(head.substr(cl + 15));
    std::uint64_t got = body.size(), hash = bulk_digest(body.data(), body.size());
    while (got < size) {
      const ssize_t n = ::recv(conn, buf, sizeof buf, 0);
      if (n <= 0) break;
      hash = bulk_digest(buf, static_cast<std::size_t>(n), hash);
      got += static_cast<std::uint64_t>(n);
    }
    const std::string a = answer(std::to_string(got) + " " + std::to_string(hash));
    send_all(conn, a.data(), a.size());
  }
  ::shutdown(conn, SHUT_WR);
  ::close(conn);
}

}  // namespace fmtest
