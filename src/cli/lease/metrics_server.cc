// MetricsServer (metrics_server.h) on prometheus-cpp's Exposer: /metrics is
// the campaign's LeaseCollectable, /healthz civetweb's begin_request hook
// (the Exposer serves collectables only, always with 200; a health check
// needs its 503).
#include "cli/lease/metrics_server.h"

#include <CivetServer.h>
#include <civetweb.h>
#include <prometheus/exposer.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <optional>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "cli/errors.h"
#include "cli/host_port.h"
#include "forgemeter/lease_collectable.h"

namespace forgemeter::cli {
namespace {

// What /healthz reads. civetweb's hook is a plain function and the Exposer
// gives its server no user data, so the process's one MetricsServer
// publishes its LeaseMetrics here while it serves.
std::atomic<const LeaseMetrics*> health_source{nullptr};

int answer(mg_connection* conn, int status, std::string_view reason, const std::string& body) {
  mg_printf(conn,
            "HTTP/1.1 %d %.*s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %zu\r\n"
            "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
            status, static_cast<int>(reason.size()), reason.data(), body.size());
  mg_write(conn, body.data(), body.size());
  return status;
}

// 1-999: answered here; 0: the Exposer's (/metrics, and its 404s).
int begin_request(mg_connection* conn) {
  const mg_request_info* info = mg_get_request_info(conn);
  if (info == nullptr || info->local_uri == nullptr || std::string_view(info->local_uri) != "/healthz") return 0;
  try {
    const LeaseMetrics* metrics = health_source.load();
    const std::optional<std::string> why = metrics ? metrics->health() : std::optional<std::string>("not serving yet");
    return why ? answer(conn, 503, "Service Unavailable", *why + "\n") : answer(conn, 200, "OK", "ok\n");
  } catch (...) {  // nothing leaves a civetweb thread
    return answer(conn, 500, "Internal Server Error", "internal error\n");
  }
}

std::string listening_option(const std::string& addr) {
  auto parsed = parse_host_port(addr);
  if (const auto* why = std::get_if<std::string>(&parsed))
    throw UsageError(fmt::format("--metrics-addr '{}': {}; give HOST:PORT, e.g. 127.0.0.1:9464", addr, *why));
  const HostPort hp = std::get<HostPort>(std::move(parsed));
  // civetweb's listening_ports: an IPv6 host in brackets, as given
  if (hp.host.find(':') != std::string::npos) return fmt::format("[{}]:{}", hp.host, hp.port);
  return fmt::format("{}:{}", hp.host, hp.port);
}

// Every signal blocked while `f` runs on this thread: threads it starts
// inherit the mask, so no signal meant for lease run lands on them.
template <typename F>
auto with_signals_blocked(F f) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  struct Restore {
    sigset_t* old;
    ~Restore() { pthread_sigmask(SIG_SETMASK, old, nullptr); }
  } restore{&old};
  return f();
}

}  // namespace

struct MetricsServer::Impl {
  std::shared_ptr<LeaseCollectable> lease;
  CivetCallbacks callbacks{};
  std::unique_ptr<prometheus::Exposer> exposer;
};

MetricsServer::MetricsServer(const std::string& addr, const LeaseMetrics& metrics) : impl_(std::make_unique<Impl>()) {
  const std::string listen = listening_option(addr);
  if (health_source.load() != nullptr) throw std::logic_error("one MetricsServer per process");
  impl_->lease = std::make_shared<LeaseCollectable>(metrics);
  impl_->callbacks.begin_request = begin_request;
  try {
    impl_->exposer = with_signals_blocked([&] {
      // SO_REUSEADDR is civetweb's; no SO_REUSEPORT, so a port in use is refused, not shared
      return std::make_unique<prometheus::Exposer>(
          std::vector<std::string>{"listening_ports", listen, "num_threads", "2"}, &impl_->callbacks);
    });
  } catch (const std::exception&) {  // civetweb's says little; ours says what to do
    throw CommandError(
        fmt::format("--metrics-addr {}: cannot listen there ({}); choose another", addr, cannot_listen(addr)));
  }
  health_source.store(&metrics);
}

void MetricsServer::serve() { impl_->exposer->RegisterCollectable(impl_->lease); }

MetricsServer::~MetricsServer() {
  impl_->exposer.reset();  // joins civetweb's threads: no scrape or health check after this
  health_source.store(nullptr);
}

}  // namespace forgemeter::cli
