// listen_address.h — where a server listens: HOST:PORT (an IPv6 host in
// brackets, [::1]:9464) or unix:PATH, parsed, checked and bound.
//
// parse_listen_address checks the form only; open_listener binds and
// listens, and says why it could not in words a user acts on (in use,
// permission denied, not an address of this machine). A listener off
// loopback is `exposed`: the server refuses it without TLS unless told.
// Thread-safety: pure functions. Errors: values, never exceptions.
#pragma once

#include <string>
#include <string_view>
#include <variant>

namespace forgemeter::serve {

struct ListenAddress {
  std::string host;  // without brackets; empty for a unix socket
  int port = 0;
  std::string path;  // the unix socket's path
  bool is_unix() const noexcept { return !path.empty(); }
  // Not 127.0.0.0/8, ::1, localhost or a unix socket: reachable from elsewhere.
  bool exposed() const noexcept;
  std::string text() const;  // as a user writes it
};

// The parts of `addr`, or why it is not HOST:PORT or unix:PATH.
std::variant<ListenAddress, std::string> parse_listen_address(std::string_view addr);

// A listening socket (non-blocking, close-on-exec) for `address`, or why
// not. A unix socket's stale file is replaced only when nothing listens on it.
std::variant<int, std::string> open_listener(const ListenAddress& address, int backlog = 1024);

}  // namespace forgemeter::serve
