// MetricsServer (metrics_server.h) on cpp-httplib.
#include "cli/lease/metrics_server.h"

#include <httplib.h>

#include <thread>

#include <fmt/format.h>

#include "cli/errors.h"
#include "cli/host_port.h"

namespace forgemeter::cli {
namespace {

HostPort parse_addr(const std::string& addr) {
  auto parsed = parse_host_port(addr);
  if (const auto* why = std::get_if<std::string>(&parsed))
    throw UsageError(fmt::format("--metrics-addr '{}': {}; give HOST:PORT, e.g. 127.0.0.1:9464", addr, *why));
  return std::get<HostPort>(std::move(parsed));
}

}  // namespace

struct MetricsServer::Impl {
  httplib::Server server;
  std::thread thread;
};

MetricsServer::MetricsServer(const std::string& addr, const LeaseMetrics& metrics) : impl_(std::make_unique<Impl>()) {
  const HostPort hp = parse_addr(addr);
  httplib::Server& s = impl_->server;
  s.Get("/metrics", [&metrics](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics.prometheus(), "text/plain; version=0.0.4; charset=utf-8");
  });
  s.Get("/healthz", [&metrics](const httplib::Request&, httplib::Response& res) {
    const auto why = metrics.health();
    res.status = why ? 503 : 200;
    res.set_content(why ? *why + "\n" : std::string("ok\n"), "text/plain; charset=utf-8");
  });
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, const std::exception_ptr&) {
    res.status = 500;
    res.set_content("internal error\n", "text/plain; charset=utf-8");
  });
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, with which a
  // second process binds a port in use and shares its scrapes.
  s.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  if (!s.bind_to_port(hp.host, hp.port))
    throw CommandError(
        fmt::format("--metrics-addr {}: cannot listen there (the port is in use, or the host is not "
                    "an address of this machine); choose another",
                    addr));
}

void MetricsServer::serve() {
  impl_->thread = std::thread([this] {
    try {
      impl_->server.listen_after_bind();
    } catch (...) {  // nothing leaves the thread: /metrics goes quiet, the lease is unaffected
    }
  });
}

MetricsServer::~MetricsServer() {
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace forgemeter::cli
