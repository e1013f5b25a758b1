// fleet_metrics.h — `forgemeter-demo --metrics-addr HOST:PORT`: the fleet's
// meters on GET /metrics while the demo runs, through the serving room.
//
// Each replica's Meter::metrics() snapshot, merged family by family, each
// sample labelled `replica` (web-0 …): ten meters side by side would repeat
// each family's HELP and TYPE lines, which an exposition may not. The Meters
// are borrowed: they must outlive the FleetMetrics (destroy it first; the
// server stops with it).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "forgemeter/meter.h"
#include "serve/server.h"

namespace forgemeter::demo {

class FleetMetrics {
 public:
  // Listens on `addr` (HOST:PORT, checked by the caller) before it returns;
  // std::runtime_error when it cannot (the port in use, a host not of this machine).
  // `meters`: each replica's name and Meter.
  FleetMetrics(const std::string& addr, std::vector<std::pair<std::string, const Meter*>> meters);
  FleetMetrics(const FleetMetrics&) = delete;
  FleetMetrics& operator=(const FleetMetrics&) = delete;

  // http://HOST:PORT/metrics, as a browser or Prometheus reaches it.
  const std::string& url() const { return url_; }

 private:
  std::string text() const;

  std::vector<std::pair<std::string, const Meter*>> meters_;
  std::unique_ptr<serve::Server> server_;
  std::string url_;
};

}  // namespace forgemeter::demo
