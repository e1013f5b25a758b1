// server.h — the one HTTP server every endpoint forgemeter opens serves
// through (metrics, probes, the proxy, the elector): libmicrohttpd on epoll,
// bounded and timed out, so idle, half-sent or endless clients cannot stop
// /healthz from answering.
//
// Bounds: connections past max_connections are closed at accept; a request
// whose header block passes max_header_bytes or whose body passes
// max_body_bytes is refused (431, 413); a client that has not sent a whole
// header block header_timeout after it connected (or after its previous
// answer, plus idle_timeout) is cut; a connection idle_timeout without a
// byte either way is closed, but never one whose answer is a stream still
// open. Probes: /healthz (the process serves; the owner's `health` may say
// why not: 503, or `degraded` a line after its 200's "ok"), /readyz (the
// owner's `ready`, and 503 from drain() on).
// Stop: drain() (readiness off), then stop(grace): listeners closed,
// requests in flight given `grace`, streams ended, threads joined.
// Thread-safety: all methods may be called from any thread; the handler
// runs on the server's threads and must not block (answer later through
// the Reply). Errors: the constructor throws std::invalid_argument naming
// the option; start() returns why it could not listen.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "forgemeter/clock.h"
#include "serve/access_log.h"
#include "serve/exchange.h"

namespace forgemeter::serve {

using Handler = std::function<void(const ServeRequest&, Reply)>;
using Probe = std::function<std::optional<std::string>()>;  // nullopt: fine; else why not

struct ServerOptions {
  std::vector<std::string> listen;  // HOST:PORT or unix:PATH, one or more
  std::string tls_cert_file;        // PEM; both or neither; re-read by reload_tls()
  std::string tls_key_file;
  bool insecure_listen = false;  // serve plain HTTP off loopback (behind a TLS-ending ingress)
  std::size_t max_connections = 10'000;
  std::size_t max_header_bytes = std::size_t{32} * 1024;
  std::size_t max_body_bytes = std::size_t{1024} * 1024;
  std::chrono::seconds header_timeout{10};
  std::chrono::seconds idle_timeout{60};
  std::size_t max_stream_buffer = std::size_t{1024} * 1024;  // a stream's bytes a slow reader has not taken
  unsigned threads = 2;
  const Clock* clock = nullptr;  // nullptr: system_clock()
  Probe health{};                // /healthz; none: 200 while the process serves
  // A part of the owner's that is degraded while the process is live (the
  // proxy's elected lane whose lease store does not answer): /healthz stays
  // 200, this line after its "ok" — liveness must not restart a process for
  // what a restart cannot mend.
  Probe degraded{};
  Probe ready{};  // /readyz; none: ready
  std::function<void(const AccessRecord&)> access_log{};
  // Requests with a body for which this says true are handed to the handler
  // as soon as their header block is in, the body read from
  // ServeRequest::body_reader as it arrives (any size; at most
  // max_body_bytes of it held at once). None: every body is buffered whole.
  std::function<bool(const ServeRequest&)> stream_body{};
};

class Server {
 public:
  Server(ServerOptions options, Handler handler);
  ~Server();  // stop(0s) unless stopped
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds every listener and serves; nullopt, or why not, naming the
  // address ("127.0.0.1:9464: the port is in use; choose another").
  std::optional<std::string> start();
  // The addresses bound, as listen gave them (a port 0 resolved).
  std::vector<std::string> addresses() const;
  // Reads the certificate and key again; new connections use them.
  std::optional<std::string> reload_tls();
  void drain();
  void stop(std::chrono::milliseconds grace);
  std::size_t connections() const noexcept;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace forgemeter::serve
