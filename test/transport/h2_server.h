// h2_server.h — a real HTTP/2 server on 127.0.0.1 for the transport's tests:
// nghttpd (Debian package nghttp2-server) serving a directory over TLS with
// a certificate of a TestCa, as a child process.
//
// cpp-httplib, the loopback forge's server, speaks only HTTP/1.1; nghttpd
// speaks only HTTP/2 (ALPN h2) and logs every frame it receives, so its log
// is the ground truth here: which requests arrived, on which connection, with
// which headers.
//
// Ownership: owns the child process and a temporary directory (document root,
// key, certificate, log); both go at destruction (SIGTERM, then waited for).
// Thread-safety: none; one test thread uses it.
// Errors: the constructor throws std::runtime_error when nghttpd is missing
// (install nghttp2-server; `scripts/dev test` does) or does not start.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "support/process.h"
#include "support/temp_files.h"
#include "testforge/test_ca.h"

namespace fmtest {

// One request nghttpd received: its connection (nghttpd's session id), its
// stream, and its header fields, pseudo-headers (":authority", ":path") included.
struct H2Request {
  int connection = 0;
  int stream = 0;
  std::map<std::string, std::string> headers;  // names as received (lower case in HTTP/2)
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

class H2Server {
 public:
  // Serves `files` (path under the root -> content) with `ca`'s server certificate.
  H2Server(const forgemeter::testforge::TestCa& ca, const std::map<std::string, std::string>& files);
  ~H2Server();
  H2Server(const H2Server&) = delete;
  H2Server& operator=(const H2Server&) = delete;

  int port() const { return port_; }
  // "host:port:127.0.0.1", for TransportOptions::resolve.
  std::string resolve(const std::string& host) const;

  // Every request received so far, in arrival order.
  std::vector<H2Request> received() const;
  // Waits (real time, at most `timeout`) until `n` requests were received;
  // true when they were. nghttpd logs a request before it answers it, so after
  // a perform returned its answer the wait ends at once.
  bool await(std::size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(10)) const;
  // How many TLS connections negotiated h2.
  int h2_connections() const;

 private:
  bool start(const std::string& nghttpd, const std::string& stdbuf);
  std::string log() const;

  fmtest::TempDir dir_;
  int pid_ = -1;
  int port_ = 0;
};

}  // namespace fmtest
