// serve_client.h — the clients the serving room's tests use against a real
// Server on loopback: libcurl for well-behaved requests, and raw sockets for
// the ones no library sends (idle, half-sent, dribbling, vanishing).
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace fmtest {

struct Fetched {
  long status = 0;  // 0: no answer
  std::string body;
  std::string headers;
  int curl_code = 0;
};

// One request with libcurl; `url` may be http://, https:// (verified
// against `ca_file`) or, with `unix_path`, a request over that socket.
Fetched fetch(const std::string& url, const std::string& method = "GET", const std::string& body = {},
              const std::string& unix_path = {}, const std::string& ca_file = {});

// A TCP connection to 127.0.0.1:port (-1 when refused); not blocking.
int raw_connect(int port);
// Whether the server closed `fd` (read gives 0 or an error) within `within`.
bool closed_by_peer(int fd, std::chrono::milliseconds within);
// The port of a server address "127.0.0.1:PORT".
int port_of(const std::string& address);

}  // namespace fmtest
