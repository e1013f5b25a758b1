// server_state.h — Server::Impl: the listeners, the libmicrohttpd daemons
// serving them, and the callbacks those daemons make (daemon_callbacks.cc).
// Internal to the serving room.
#pragma once

#include <microhttpd.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "core/mutex.h"
#include "core/thread_annotations.h"
#include "serve/exchange_state.h"
#include "serve/header_deadlines.h"
#include "serve/listen_address.h"
#include "serve/server.h"

namespace forgemeter::serve {

// What the server keeps of one connection (libmicrohttpd's socket context):
// the request being read or answered, owned here so that one abandoned
// before its headers were complete is freed when the connection closes.
struct ConnectionState {
  std::shared_ptr<Exchange> current;
  bool probe_only = false;  // accepted past max_connections, into the probes' reserve
};

// Connections past max_connections that are still accepted, for /healthz
// and /readyz alone: a server full of idle clients still answers its probes.
inline constexpr std::size_t kProbeReserve = 16;

// What of a streamed body is still read, and dropped, after its owner
// answered early: a client that sent a little more still gets the answer;
// one that keeps sending is cut rather than read forever.
inline constexpr std::uint64_t kDropBeforeClose = std::uint64_t{1} << 20;

struct Daemon {
  MHD_Daemon* mhd = nullptr;
  std::string cert_pem, key_pem;  // alive as long as the daemon
};

struct Listener {
  ListenAddress address;
  int fd = -1;
  std::unique_ptr<Daemon> daemon;
  std::vector<std::unique_ptr<Daemon>> retired;  // before a TLS reload; stopped when empty or at stop()
};

struct Server::Impl {
  Impl(ServerOptions o, Handler h) : options(std::move(o)), handler(std::move(h)) {}

  const Clock& clock() const noexcept { return options.clock ? *options.clock : system_clock(); }

  ServerOptions options;
  Handler handler;
  std::atomic<bool> draining{false};
  std::atomic<bool> stopped{false};
  std::unique_ptr<HeaderDeadlines> deadlines;
  core_detail::Mutex mu;  // listeners and the live exchanges
  std::vector<Listener> listeners GUARDED_BY(mu);
  std::unordered_set<Exchange*> live GUARDED_BY(mu);  // dispatched, not completed
  std::atomic<std::size_t> open{0};                   // connections accepted and not closed
  std::atomic<std::size_t> in_flight{0};              // dispatched, not finished
  std::condition_variable settled;                    // in_flight went down

  // daemon_callbacks.cc: a daemon on `fd` for this server (TLS when the PEMs
  // are non-empty), or why not.
  std::optional<std::string> start_daemon(Listener& listener, std::unique_ptr<Daemon>& out);
  // The certificate and key files' PEMs, or why not.
  std::variant<std::pair<std::string, std::string>, std::string> read_tls_files() const;
  // Probes and the owner's handler; never throws.
  void dispatch(const std::shared_ptr<Exchange>& exchange);
  // The exchange is over (client_gone: before its whole answer was sent).
  void finished(Exchange& exchange, bool client_gone);
};

}  // namespace forgemeter::serve
