// parse_host_port (host_port.h).
#include "cli/host_port.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <string_view>
#include <system_error>

namespace forgemeter::cli {

std::variant<HostPort, std::string> parse_host_port(const std::string& addr) {
  const std::size_t colon = addr.rfind(':');
  if (colon == std::string::npos) return std::string("no port");
  HostPort hp{addr.substr(0, colon), 0};
  if (hp.host.size() >= 2 && hp.host.front() == '[' && hp.host.back() == ']')
    hp.host = hp.host.substr(1, hp.host.size() - 2);
  if (hp.host.empty()) return std::string("no host");
  if (hp.host.find_first_of("[]/ ") != std::string::npos ||
      (hp.host.find(':') != std::string::npos && addr.front() != '['))
    return std::string("not a host name or address");
  const std::string_view p = std::string_view(addr).substr(colon + 1);
  const auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), hp.port);
  if (p.empty() || ec != std::errc() || end != p.data() + p.size() || hp.port < 1 || hp.port > 65535)
    return std::string("the port must be a number from 1 to 65535");
  return hp;
}

namespace {

// The errno of binding a listening socket (SO_REUSEADDR, as servers do) to
// the first of `hp`'s addresses; 0 when it binds.
int trial_bind(const HostPort& hp) {
  addrinfo hints{};
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(hp.host.c_str(), std::to_string(hp.port).c_str(), &hints, &found) != 0 || found == nullptr)
    return EADDRNOTAVAIL;
  int err = 0;
  const int fd = ::socket(found->ai_family, found->ai_socktype | SOCK_CLOEXEC, found->ai_protocol);
  if (fd < 0) {
    err = errno;
  } else {
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, found->ai_addr, found->ai_addrlen) != 0 || ::listen(fd, 1) != 0) err = errno;
    ::close(fd);
  }
  freeaddrinfo(found);
  return err;
}

// A bind's errno in words (0: the trial bind worked after all).
std::string listen_errno_text(int err) {
  switch (err) {
    case EADDRINUSE: return "the port is in use";
    case EACCES:
    case EPERM: return "permission denied: a port below 1024 needs root or CAP_NET_BIND_SERVICE";
    case EADDRNOTAVAIL:
    case EAFNOSUPPORT: return "the host is not an address of this machine";
    // The server's bind failed and ours, a moment later, did not: either may be why.
    case 0: return "the port is in use, or the host is not an address of this machine";
    default: return std::error_code(err, std::generic_category()).message();
  }
}

}  // namespace

std::string cannot_listen(const std::string& addr) {
  const auto parsed = parse_host_port(addr);
  if (const auto* why = std::get_if<std::string>(&parsed)) return *why;
  return listen_errno_text(trial_bind(std::get<HostPort>(parsed)));
}

}  // namespace forgemeter::cli
