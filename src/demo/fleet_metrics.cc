// FleetMetrics (fleet_metrics.h): the replicas' snapshots merged, written by
// the meter's own exposition, served by the serving room.
#include "demo/fleet_metrics.h"

#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "meter/prometheus.h"
#include "serve/metrics_route.h"

namespace forgemeter::demo {

FleetMetrics::FleetMetrics(const std::string& addr, std::vector<std::pair<std::string, const Meter*>> meters)
    : meters_(std::move(meters)) {
  serve::ServerOptions o;
  o.listen = {addr};
  server_ = std::make_unique<serve::Server>(std::move(o), serve::metrics_route([this] { return text(); }));
  if (auto why = server_->start()) throw std::runtime_error(fmt::format("--metrics-addr {}: {}", addr, *why));
  url_ = fmt::format("http://{}/metrics", server_->addresses().at(0));
}

std::string FleetMetrics::text() const {
  MeterMetrics fleet;
  std::map<std::string, std::size_t> at;  // family name -> its index in fleet
  for (const auto& [name, meter] : meters_) {
    for (MetricFamilySnapshot& family : meter->metrics().families) {
      for (MetricSample& sample : family.samples) sample.labels.emplace_back("replica", name);
      const auto [it, fresh] = at.try_emplace(family.name, fleet.families.size());
      if (fresh) {
        fleet.families.push_back(std::move(family));
        continue;
      }
      auto& into = fleet.families[it->second].samples;
      into.insert(into.end(), std::make_move_iterator(family.samples.begin()),
                  std::make_move_iterator(family.samples.end()));
    }
  }
  return meter::exposition(fleet);
}

}  // namespace forgemeter::demo
