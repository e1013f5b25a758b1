#include "forgemeter/prometheus.h"

namespace forgemeter {

std::vector<prometheus::MetricFamily> MeterCollectable::Collect() const {
  const MeterMetrics metrics = meter_.metrics();
  std::vector<prometheus::MetricFamily> out;
  out.reserve(metrics.families.size());
  for (const auto& f : metrics.families) {
    prometheus::MetricFamily family{
        f.name,
        f.help,
        f.type == MetricType::counter ? prometheus::MetricType::Counter : prometheus::MetricType::Gauge,
        {}};
    family.metric.reserve(f.samples.size());
    for (const auto& s : f.samples) {
      prometheus::ClientMetric m;
      m.label.reserve(s.labels.size());
      for (const auto& [name, value] : s.labels) m.label.push_back({name, value});
      const double value = f.thousandths ? static_cast<double>(s.value) / 1000.0 : static_cast<double>(s.value);
      if (f.type == MetricType::counter)
        m.counter.value = value;
      else
        m.gauge.value = value;
      family.metric.push_back(std::move(m));
    }
    out.push_back(std::move(family));
  }
  return out;
}

}  // namespace forgemeter
