// `lease run --metrics-addr HOST:PORT`: /metrics (the campaign's LeaseMetrics
// through forgemeter::LeaseCollectable) and /healthz (200 "ok", or 503 and why
// the campaign is stuck), served by prometheus-cpp's Exposer on threads of
// its own that let no exception out. One per process. Without the
// prometheus component (metrics_server_absent.cc) the constructor refuses
// with a UsageError.
#pragma once

#include <memory>
#include <string>

#include "forgemeter/lease_metrics.h"

namespace forgemeter::cli {

class MetricsServer {
 public:
  // Bound before it returns. UsageError for an address that is not HOST:PORT
  // (port 1 to 65535; an IPv6 host in brackets), CommandError when it cannot
  // be bound (a port in use, a privileged port: what the bind said). Borrows `metrics`: it must outlive the server.
  MetricsServer(const std::string& addr, const LeaseMetrics& metrics);
  // Starts the serving thread: call it once the process's signal mask is set
  // (SignalWatch), so the thread inherits it and no signal lands there.
  void serve();
  ~MetricsServer();  // stops serving and joins
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace forgemeter::cli
