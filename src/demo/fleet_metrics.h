// fleet_metrics.h — `forgemeter-demo --metrics-addr HOST:PORT`: the fleet's
// meters on GET /metrics while the demo runs, through prometheus-cpp's Exposer.
//
// One MeterCollectable per replica, all behind one collectable that merges
// their families by name and gives each metric a `replica` label (the
// replica's name, web-0 …): prometheus-cpp's Exposer has no per-collectable
// labels, and ten collectables registered side by side would repeat each
// family's HELP and TYPE lines, which an exposition may not.
//
// Built on forgemeter's prometheus component when the build has it
// (fleet_metrics.cc); without it (fleet_metrics_absent.cc) available() is
// false and the demo refuses the option. The Meters are borrowed: they must
// outlive the FleetMetrics (destroy it first; scrapes stop with it).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "forgemeter/meter.h"

namespace forgemeter::demo {

class FleetMetrics {
 public:
  // Whether this build can serve /metrics (it has the prometheus component).
  static bool available();
  // Listens on `addr` (HOST:PORT, checked by the caller) before it returns;
  // std::runtime_error when it cannot (the port in use, a host not of this machine).
  // `meters`: each replica's name and Meter.
  FleetMetrics(const std::string& addr, const std::vector<std::pair<std::string, const Meter*>>& meters);
  ~FleetMetrics();
  FleetMetrics(const FleetMetrics&) = delete;
  FleetMetrics& operator=(const FleetMetrics&) = delete;

  // http://HOST:PORT/metrics, as a browser or Prometheus reaches it.
  const std::string& url() const { return url_; }

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  std::string url_;
};

}  // namespace forgemeter::demo
