// FleetMetrics (fleet_metrics.h) in a build without the prometheus component:
// not available, and the demo refuses --metrics-addr before it gets here.
#include <stdexcept>

#include "demo/fleet_metrics.h"

namespace forgemeter::demo {

struct FleetMetrics::Impl {};

bool FleetMetrics::available() { return false; }

FleetMetrics::FleetMetrics(const std::string&, const std::vector<std::pair<std::string, const Meter*>>&) {
  throw std::logic_error("forgemeter-demo was built without the prometheus component");
}

FleetMetrics::~FleetMetrics() = default;

}  // namespace forgemeter::demo
