// add_serve_options and start_serving (serve_options.h).
#include "cli/serve_options.h"

#include <pthread.h>
#include <signal.h>

#include <variant>

#include <fmt/format.h>

#include "cli/errors.h"
#include "cli/lease/duration_arg.h"
#include "serve/listen_address.h"

namespace forgemeter::cli {

void add_serve_options(CLI::App& command, ServeArgs& a) {
  command.add_option("--tls-cert", a.tls_cert,
                     "PEM certificate to serve HTTPS with (with --tls-key; re-read on SIGHUP)");
  command.add_option("--tls-key", a.tls_key, "PEM private key of --tls-cert");
  command.add_flag("--insecure-listen", a.insecure_listen,
                   "serve plain HTTP on an address that is not loopback (behind a TLS-ending proxy)");
  command
      .add_option("--max-connections", a.max_connections,
                  "connections served at once; past it they are closed as accepted (default 10000)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000}));
  command.add_option("--header-timeout", a.header_timeout,
                     "a client must send its whole request head within this (default 10s)");
  command.add_option("--idle-timeout", a.idle_timeout,
                     "a keep-alive connection silent this long is closed; never a stream (default 60s)");
  command.add_option("--shutdown-delay", a.shutdown_delay,
                     "on SIGTERM, /readyz answers 503 this long while all else serves (default 0s)");
  command.add_option("--shutdown-grace", a.shutdown_grace,
                     "then requests in flight get this long to finish (default 10s)");
  command.add_option("--access-log", a.access_log, "one JSON line per request to FILE ('-': stderr); no credential");
}

namespace {

std::chrono::seconds whole_seconds(const std::string& text, std::string_view option) {
  return std::chrono::ceil<std::chrono::seconds>(
      duration_arg(text, option, std::chrono::seconds(1), std::chrono::hours(24)));
}

}  // namespace

Serving start_serving(const ServeArgs& a, std::string_view option, std::vector<std::string> listen,
                      serve::Handler handler, serve::Probe health,
                      std::function<bool(const serve::ServeRequest&)> stream_body, serve::Probe degraded) {
  if (a.tls_cert.empty() != a.tls_key.empty()) throw UsageError("--tls-cert and --tls-key come together; give both");
  serve::ServerOptions o;
  for (const std::string& l : listen) {
    auto parsed = serve::parse_listen_address(l);
    if (auto* why = std::get_if<std::string>(&parsed))
      throw UsageError(fmt::format("{} '{}': {}; give HOST:PORT (e.g. 127.0.0.1:9464) or unix:PATH", option, l, *why));
    if (std::get<serve::ListenAddress>(parsed).exposed() && a.tls_cert.empty() && !a.insecure_listen)
      throw UsageError(
          fmt::format("{} '{}' is not a loopback address: give --tls-cert and --tls-key, or "
                      "--insecure-listen when a TLS-ending proxy stands in front",
                      option, l));
  }
  o.listen = std::move(listen);
  o.tls_cert_file = a.tls_cert;
  o.tls_key_file = a.tls_key;
  o.insecure_listen = a.insecure_listen;
  o.max_connections = a.max_connections;
  o.header_timeout = whole_seconds(a.header_timeout, "--header-timeout");
  o.idle_timeout = whole_seconds(a.idle_timeout, "--idle-timeout");
  o.health = std::move(health);
  o.degraded = std::move(degraded);
  o.stream_body = std::move(stream_body);
  Serving s;
  s.shutdown_delay = duration_arg(a.shutdown_delay, "--shutdown-delay", Duration::zero());
  s.shutdown_grace = duration_arg(a.shutdown_grace, "--shutdown-grace", Duration::zero());
  if (!a.access_log.empty()) {
    try {
      s.log = std::make_unique<serve::AccessLogFile>(a.access_log);
    } catch (const std::runtime_error& e) {
      throw CommandError(e.what());
    }
    o.access_log = [log = s.log.get()](const serve::AccessRecord& r) { log->write(r); };
  }
  s.server = std::make_unique<serve::Server>(std::move(o), std::move(handler));
  // Every signal blocked while the server's threads start: they inherit the
  // mask, so a signal meant for the command never lands on them.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  const auto why = s.server->start();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (why) throw CommandError(fmt::format("{} {}", option, *why));
  return s;
}

void Serving::stop_after_delay(SteadyTime drained_at) {
  system_clock().wait_until(drained_at + shutdown_delay, {});
  server->stop(std::chrono::duration_cast<std::chrono::milliseconds>(shutdown_grace));
}

}  // namespace forgemeter::cli
