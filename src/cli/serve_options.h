// serve_options.h — the options every serving command shares (`lease run
// --metrics-addr`, and the proxy and elector to come): TLS, bounds, timeouts,
// the access log and the stop on SIGTERM, as flags on one CLI11 command,
// turned into the serving room's ServerOptions.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "forgemeter/clock.h"
#include "serve/access_log.h"
#include "serve/server.h"

namespace forgemeter::cli {

struct ServeArgs {
  std::string tls_cert, tls_key, access_log;
  bool insecure_listen = false;
  std::size_t max_connections = 10'000;
  std::string header_timeout = "10s", idle_timeout = "60s", shutdown_delay = "0s", shutdown_grace = "10s";
};

void add_serve_options(CLI::App& command, ServeArgs& args);

// A server on `listen` as `args` say, started: UsageError (exit 2) for an
// address or option that cannot work, CommandError (exit 1) when it cannot
// listen. Its threads start with every signal blocked: none lands there.
struct Serving {
  std::unique_ptr<serve::AccessLogFile> log;  // before the server: it outlives it
  std::unique_ptr<serve::Server> server;
  Duration shutdown_delay{}, shutdown_grace{};
  // SIGTERM's order: /readyz 503 now, the delay, then stop with the grace.
  void drain() { server->drain(); }
  void stop_after_delay(SteadyTime drained_at);
};
// `option` names the listen option in messages ("--metrics-addr").
// `stream_body`: ServerOptions::stream_body (none: every body buffered);
// `degraded`: ServerOptions::degraded.
Serving start_serving(const ServeArgs& args, std::string_view option, std::vector<std::string> listen,
                      serve::Handler handler, serve::Probe health = {},
                      std::function<bool(const serve::ServeRequest&)> stream_body = {}, serve::Probe degraded = {});

}  // namespace forgemeter::cli
