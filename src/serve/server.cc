// Server (server.h): its listeners, probes, drain and stop; the daemons'
// callbacks are in daemon_callbacks.cc.
#include <netinet/in.h>
#include <sys/resource.h>
#include <unistd.h>

#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "core/option_file.h"
#include "serve/server_state.h"

namespace forgemeter::serve {
namespace {

void check(bool ok, const char* field, const char* rule) {
  if (!ok) throw std::invalid_argument(fmt::format("ServerOptions::{} {}", field, rule));
}

// Every descriptor the hard limit allows: each connection is one.
void raise_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

// The probes' answers: 200 "ok" (and what is degraded, on the next line),
// or 503 and why not.
void probe_answer(Reply& reply, const std::optional<std::string>& why,
                  const std::optional<std::string>& degraded = std::nullopt) {
  const std::vector<Field> headers = {{"Content-Type", "text/plain; charset=utf-8"}, {"Cache-Control", "no-store"}};
  if (why)
    reply.answer(503, headers, *why + "\n");
  else
    reply.answer(200, headers, degraded ? "ok\n" + *degraded + "\n" : std::string("ok\n"));
}

}  // namespace

std::variant<std::pair<std::string, std::string>, std::string> Server::Impl::read_tls_files() const {
  core_detail::OptionFile cert = core_detail::read_option_file(options.tls_cert_file, 1 << 20);
  if (cert.problem) return fmt::format("--tls-cert {}: {}", options.tls_cert_file, *cert.problem);
  core_detail::OptionFile key = core_detail::read_option_file(options.tls_key_file, 1 << 20);
  if (key.problem) return fmt::format("--tls-key {}: {}", options.tls_key_file, *key.problem);
  return std::pair{std::move(cert.text), std::move(key.text)};
}

void Server::Impl::dispatch(const std::shared_ptr<Exchange>& exchange) {
  {
    core_detail::MutexLock lock(mu);
    live.insert(exchange.get());
  }
  in_flight.fetch_add(1);
  // Copies of the Reply share `guard`: the last one dropped without an
  // answer answers 500, so a handler's bug never hangs a client.
  struct Guard {
    explicit Guard(std::shared_ptr<Exchange> e) : ex(std::move(e)) {}
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    std::shared_ptr<Exchange> ex;
    ~Guard() { ex->answer(500, {{"Content-Type", "text/plain"}}, "internal error: no answer was made\n"); }
  };
  auto guard = std::make_shared<Guard>(exchange);
  Reply reply(std::shared_ptr<Exchange>(guard, exchange.get()));
  const ServeRequest& r = exchange->request();
  try {
    const bool probe = r.method == "GET" || r.method == "HEAD";
    if (probe && r.path == "/healthz") {
      const auto why = options.health ? options.health() : std::nullopt;
      return probe_answer(reply, why, !why && options.degraded ? options.degraded() : std::nullopt);
    }
    if (probe && r.path == "/readyz") {
      if (draining.load()) return probe_answer(reply, "shutting down");
      return probe_answer(reply, options.ready ? options.ready() : std::nullopt);
    }
    if (exchange->probe_only)
      return void(reply.answer(503, {{"Content-Type", "text/plain"}, {"Connection", "close"}, {"Retry-After", "1"}},
                               "the server is at its connection limit\n"));
    handler(r, reply);
  } catch (...) {
    reply.answer(500, {{"Content-Type", "text/plain"}}, "internal error\n");
  }
}

void Server::Impl::finished(Exchange& exchange, bool client_gone) {
  exchange.completed(client_gone);
  {
    core_detail::MutexLock lock(mu);
    if (live.erase(&exchange) == 1) in_flight.fetch_sub(1);
  }
  settled.notify_all();
  if (!options.access_log || exchange.request().method.empty()) return;
  const ServeRequest& r = exchange.request();
  options.access_log({exchange.at, r.method, masked_target(r.path, r.query), client_gone ? 0 : exchange.status(),
                      exchange.bytes(),
                      std::chrono::duration_cast<std::chrono::microseconds>(clock().steady_now() - exchange.started),
                      r.peer, exchange.take_log_fields()});
}

Server::Server(ServerOptions options, Handler handler)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(handler))) {
  const ServerOptions& o = impl_->options;
  check(!o.listen.empty(), "listen", "names no address");
  check(o.max_connections > 0, "max_connections", "must be at least 1");
  check(o.max_header_bytes >= 4096, "max_header_bytes", "must be at least 4096");
  check(o.header_timeout.count() > 0, "header_timeout", "must be at least 1s");
  check(o.idle_timeout.count() > 0, "idle_timeout", "must be at least 1s");
  check(o.threads > 0, "threads", "must be at least 1");
  check(o.tls_cert_file.empty() == o.tls_key_file.empty(), "tls_cert_file", "and tls_key_file come together");
  check(static_cast<bool>(impl_->handler), "handler", "is empty");
}

Server::~Server() { stop(std::chrono::milliseconds(0)); }

std::optional<std::string> Server::start() {
  Impl& s = *impl_;
  std::vector<Listener> bound;
  for (const std::string& text : s.options.listen) {
    auto parsed = parse_listen_address(text);
    if (auto* why = std::get_if<std::string>(&parsed)) return fmt::format("'{}': {}", text, *why);
    Listener l{std::get<ListenAddress>(std::move(parsed)), -1, nullptr, {}};
    if (l.address.exposed() && s.options.tls_cert_file.empty() && !s.options.insecure_listen)
      return fmt::format(
          "{}: not a loopback address; give --tls-cert and --tls-key, or --insecure-listen "
          "when a TLS-ending proxy stands in front",
          text);
    bound.push_back(std::move(l));
  }
  raise_file_limit();
  const Duration header = s.options.header_timeout;
  s.deadlines =
      std::make_unique<HeaderDeadlines>(s.clock(), header, std::max<Duration>(header, s.options.idle_timeout));
  for (Listener& l : bound) {
    auto fd = open_listener(l.address);
    if (auto* why = std::get_if<std::string>(&fd)) return fmt::format("{}: {}", l.address.text(), *why);
    l.fd = std::get<int>(fd);
    if (auto why = s.start_daemon(l, l.daemon)) return why;
  }
  core_detail::MutexLock lock(s.mu);
  s.listeners = std::move(bound);
  return std::nullopt;
}

std::vector<std::string> Server::addresses() const {
  core_detail::MutexLock lock(impl_->mu);
  std::vector<std::string> out;
  for (const Listener& l : impl_->listeners) {
    ListenAddress a = l.address;
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if (!a.is_unix() && ::getsockname(l.fd, reinterpret_cast<sockaddr*>(&ss), &len) == 0)
      a.port = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                                              : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
    out.push_back(a.text());
  }
  return out;
}

std::optional<std::string> Server::reload_tls() {
  Impl& s = *impl_;
  if (s.options.tls_cert_file.empty()) return std::nullopt;
  core_detail::MutexLock lock(s.mu);
  for (Listener& l : s.listeners) {
    std::unique_ptr<Daemon> fresh;
    // The new daemon is made first: a bad certificate leaves the old serving.
    if (auto why = s.start_daemon(l, fresh)) return why;
    MHD_quiesce_daemon(l.daemon->mhd);  // the old one accepts no more; its connections finish
    l.retired.push_back(std::move(l.daemon));
    l.daemon = std::move(fresh);
  }
  return std::nullopt;
}

void Server::drain() { impl_->draining.store(true); }

std::size_t Server::connections() const noexcept {
  core_detail::MutexLock lock(impl_->mu);
  std::size_t n = 0;
  for (const Listener& l : impl_->listeners)
    if (l.daemon)
      if (const MHD_DaemonInfo* info = MHD_get_daemon_info(l.daemon->mhd, MHD_DAEMON_INFO_CURRENT_CONNECTIONS))
        n += info->num_connections;
  return n;
}

}  // namespace forgemeter::serve
