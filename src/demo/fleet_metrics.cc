// FleetMetrics (fleet_metrics.h) on prometheus-cpp's Exposer and forgemeter's
// MeterCollectable.
#include "demo/fleet_metrics.h"

#include <prometheus/collectable.h>
#include <prometheus/exposer.h>

#include <map>

#include <fmt/format.h>

#include "cli/host_port.h"
#include "forgemeter/prometheus.h"

namespace forgemeter::demo {
namespace {

// The replicas' MeterCollectables as one: each family once, holding every
// replica's metrics, each labelled `replica`.
class FleetCollectable : public prometheus::Collectable {
 public:
  explicit FleetCollectable(const std::vector<std::pair<std::string, const Meter*>>& meters) {
    for (const auto& [name, meter] : meters) replicas_.push_back({name, MeterCollectable(*meter)});
  }

  std::vector<prometheus::MetricFamily> Collect() const override {
    std::vector<prometheus::MetricFamily> out;
    std::map<std::string, std::size_t> at;  // family name -> its index in out
    for (const auto& r : replicas_) {
      for (auto& family : r.collectable.Collect()) {
        for (auto& m : family.metric) m.label.push_back({"replica", r.name});
        const auto [it, fresh] = at.try_emplace(family.name, out.size());
        if (fresh) {
          out.push_back(std::move(family));
          continue;
        }
        auto& into = out[it->second].metric;
        into.insert(into.end(), std::make_move_iterator(family.metric.begin()),
                    std::make_move_iterator(family.metric.end()));
      }
    }
    return out;
  }

 private:
  struct Replica {
    std::string name;
    MeterCollectable collectable;
  };
  std::vector<Replica> replicas_;
};

}  // namespace

struct FleetMetrics::Impl {
  std::shared_ptr<FleetCollectable> fleet;
  std::unique_ptr<prometheus::Exposer> exposer;
};

bool FleetMetrics::available() { return true; }

FleetMetrics::FleetMetrics(const std::string& addr, const std::vector<std::pair<std::string, const Meter*>>& meters)
    : impl_(std::make_unique<Impl>()) {
  impl_->fleet = std::make_shared<FleetCollectable>(meters);
  try {
    impl_->exposer = std::make_unique<prometheus::Exposer>(addr, 2);
  } catch (const std::exception&) {  // civetweb's: says little; ours says what to do
    throw std::runtime_error(
        fmt::format("--metrics-addr {}: cannot listen there ({}); choose another", addr, cli::cannot_listen(addr)));
  }
  impl_->exposer->RegisterCollectable(impl_->fleet);
  url_ = fmt::format("http://{}/metrics", addr);
}

FleetMetrics::~FleetMetrics() {
  if (impl_->exposer) impl_->exposer->RemoveCollectable(impl_->fleet);  // no scrape reads a Meter after this
}

}  // namespace forgemeter::demo
