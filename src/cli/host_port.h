// host_port.h — an address to listen on, as HOST:PORT (`--metrics-addr` of
// `forgemeter lease run` and of forgemeter-demo): the port 1 to 65535, an IPv6
// host in brackets ([::1]:9464). parse_host_port() checks only the form;
// whether the host is an address of this machine, the bind says, and
// cannot_listen() puts what it said in words.
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

// Why a server cannot listen on `addr` ("the port is in use", "permission
// denied: …"), for the line that refuses it: a trial bind of a socket of
// our own (the server's library keeps its errno), its errno in words.
std::string cannot_listen(const std::string& addr);

}  // namespace forgemeter::cli
