// host_port.h — an address to listen on, as HOST:PORT (`--metrics-addr` of
// `forgemeter lease run` and of forgemeter-demo): the port 1 to 65535, an IPv6
// host in brackets ([::1]:9464). Only the form is checked here; whether the
// host is an address of this machine, the bind says.
#pragma once

#include <string>
#include <variant>

namespace forgemeter::cli {

struct HostPort {
  std::string host;  // without the brackets
  int port = 0;
};

// The parts of `addr`, or why it is not HOST:PORT (e.g. "no port").
std::variant<HostPort, std::string> parse_host_port(const std::string& addr);

}  // namespace forgemeter::cli
