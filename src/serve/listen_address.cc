// parse_listen_address and open_listener (listen_address.h).
#include "serve/listen_address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include <fmt/format.h>

namespace forgemeter::serve {
namespace {

std::variant<ListenAddress, std::string> parse_host_port(std::string_view addr) {
  const std::size_t colon = addr.rfind(':');
  if (colon == std::string_view::npos) return std::string("no port");
  ListenAddress a{std::string(addr.substr(0, colon)), 0, {}};
  if (a.host.size() >= 2 && a.host.front() == '[' && a.host.back() == ']') a.host = a.host.substr(1, a.host.size() - 2);
  if (a.host.empty()) return std::string("no host");
  if (a.host.find_first_of("[]/ ") != std::string::npos ||
      (a.host.find(':') != std::string::npos && addr.front() != '['))
    return std::string("not a host name or address");
  const std::string_view p = addr.substr(colon + 1);
  const auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), a.port);
  if (p.empty() || ec != std::errc() || end != p.data() + p.size() || a.port < 0 || a.port > 65535)
    return std::string("the port must be a number from 0 (any free port) to 65535");
  return a;
}

std::string bind_failure(int err, const ListenAddress& address) {
  switch (err) {
    case EADDRINUSE: return "the port is in use; choose another";
    case EACCES:
    case EPERM:
      return address.is_unix() ? "permission denied creating the socket's file"
                               : "permission denied (a port below 1024 needs root or CAP_NET_BIND_SERVICE)";
    case EADDRNOTAVAIL: return "the host is not an address of this machine";
    default: return fmt::format("cannot listen there: {}", std::strerror(err));
  }
}

// Whether a process listens on the unix socket at `path` now.
bool unix_socket_answers(const sockaddr_un& sun) {
  const int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (probe < 0) return false;
  const bool answers = ::connect(probe, reinterpret_cast<const sockaddr*>(&sun), sizeof sun) == 0;
  ::close(probe);
  return answers;
}

std::variant<int, std::string> listen_on(int fd, const sockaddr* sa, socklen_t len, const ListenAddress& address,
                                         int backlog) {
  if (::bind(fd, sa, len) != 0 || ::listen(fd, backlog) != 0) {
    const int err = errno;
    ::close(fd);
    return bind_failure(err, address);
  }
  return fd;
}

std::variant<int, std::string> open_unix(const ListenAddress& address, int backlog) {
  sockaddr_un sun{};
  sun.sun_family = AF_UNIX;
  if (address.path.size() >= sizeof sun.sun_path)
    return fmt::format("the path is longer than {} bytes", sizeof sun.sun_path - 1);
  std::memcpy(sun.sun_path, address.path.c_str(), address.path.size() + 1);
  struct stat st {};
  if (::lstat(address.path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) return std::string("a file that is not a socket is there");
    if (unix_socket_answers(sun)) return std::string("a server listens on that socket; choose another path");
    ::unlink(address.path.c_str());  // a stale socket a stopped server left
  }
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return bind_failure(errno, address);
  return listen_on(fd, reinterpret_cast<const sockaddr*>(&sun), sizeof sun, address, backlog);
}

}  // namespace

bool ListenAddress::exposed() const noexcept {
  if (is_unix() || host == "localhost" || host == "::1") return false;
  in_addr v4{};
  return !(::inet_pton(AF_INET, host.c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127);
}

std::string ListenAddress::text() const {
  if (is_unix()) return "unix:" + path;
  return host.find(':') != std::string::npos ? fmt::format("[{}]:{}", host, port) : fmt::format("{}:{}", host, port);
}

std::variant<ListenAddress, std::string> parse_listen_address(std::string_view addr) {
  if (addr.substr(0, 5) == "unix:") {
    const std::string_view path = addr.substr(5);
    if (path.empty()) return std::string("no path after unix:");
    if (path.find('\0') != std::string_view::npos) return std::string("a NUL byte in the path");
    return ListenAddress{{}, 0, std::string(path)};
  }
  return parse_host_port(addr);
}

std::variant<int, std::string> open_listener(const ListenAddress& address, int backlog) {
  if (address.is_unix()) return open_unix(address, backlog);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(address.port);
  if (const int rc = ::getaddrinfo(address.host.c_str(), port.c_str(), &hints, &found); rc != 0)
    return fmt::format("the host is not an address of this machine ({})", ::gai_strerror(rc));
  struct Free {
    addrinfo* p;
    ~Free() { ::freeaddrinfo(p); }
  } free_later{found};
  const int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return bind_failure(errno, address);
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);  // a restart may bind while old sockets linger
  if (found->ai_family == AF_INET6) ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  return listen_on(fd, found->ai_addr, found->ai_addrlen, address, backlog);
}

}  // namespace forgemeter::serve
