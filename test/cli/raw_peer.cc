#include "raw_peer.h"

#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

namespace fmtest {

namespace {

// The value of Content-Length in `head`, 0 when it has none.
std::size_t content_length(const RawRequest& r) {
  const auto values = r.fields("Content-Length");
  return values.empty() ? 0 : std::stoul(values.front());
}

// Reads more of `conn` into `got`; false at EOF, an error or 5 s of silence.
bool read_more(int conn, std::string& got) {
  pollfd p{conn, POLLIN, 0};
  if (::poll(&p, 1, 5000) <= 0) return false;
  char buf[16 * 1024];
  const ssize_t n = ::recv(conn, buf, sizeof buf, 0);
  if (n <= 0) return false;
  got.append(buf, static_cast<std::size_t>(n));
  return true;
}

}  // namespace

std::vector<std::string> RawRequest::fields(const std::string& name) const {
  std::vector<std::string> out;
  for (std::size_t at = head.find("\r\n"); at != std::string::npos && at + 2 < head.size();) {
    const std::size_t start = at + 2, end = head.find("\r\n", start);
    const std::string line = head.substr(start, end - start);
    const auto colon = line.find(':');
    if (colon == name.size() && strncasecmp(line.data(), name.data(), name.size()) == 0)
      out.push_back(line.substr(std::min(line.find_first_not_of(' ', colon + 1), line.size())));  // "Name:": ""
    at = end;
  }
  return out;
}

RawPeer::RawPeer(std::string answer) : answer_(std::move(answer)), thread_([this] { run(); }) {}

RawPeer::~RawPeer() {
  stop_ = true;
  thread_.join();
}

std::string RawPeer::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(listener_.port()) + path;
}

std::vector<RawRequest> RawPeer::requests() const {
  std::lock_guard lock(mu_);
  return requests_;
}

void RawPeer::run() {
  while (!stop_) {
    pollfd p{listener_.fd(), POLLIN, 0};
    if (::poll(&p, 1, 20) <= 0) continue;
    const int conn = ::accept(listener_.fd(), nullptr, nullptr);
    if (conn < 0) continue;
    serve(conn);
    ::close(conn);
  }
}

void RawPeer::serve(int conn) {
  std::string got;
  while (got.find("\r\n\r\n") == std::string::npos)
    if (!read_more(conn, got)) return;
  RawRequest r;
  const auto end = got.find("\r\n\r\n") + 4;
  r.head = got.substr(0, end);
  r.body = got.substr(end);
  const std::size_t want = content_length(r);
  while (r.body.size() < want && read_more(conn, r.body)) {
  }
  {
    std::lock_guard lock(mu_);
    requests_.push_back(r);
  }
  // The client may hang up part-way (a header it refuses): what is left is not sent.
  for (std::size_t sent = 0; sent < answer_.size();) {
    const ssize_t n = ::send(conn, answer_.data() + sent, answer_.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  ::shutdown(conn, SHUT_WR);
  std::string rest;  // until the client closes (or 5 s), so it reads the whole answer before a reset
  while (read_more(conn, rest) && rest.size() < (1u << 20)) {
  }
}

}  // namespace fmtest
