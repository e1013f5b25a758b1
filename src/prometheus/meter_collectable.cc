#include <limits>

#include "forgemeter/prometheus.h"

namespace forgemeter {

namespace {

prometheus::MetricType type_of(MetricType t) {
  switch (t) {
    case MetricType::counter: return prometheus::MetricType::Counter;
    case MetricType::gauge: return prometheus::MetricType::Gauge;
    case MetricType::histogram: return prometheus::MetricType::Histogram;
  }
  return prometheus::MetricType::Untyped;
}

// Cumulative buckets at the family's bounds, then +Inf (as prometheus-cpp's
// own Histogram collects them), the sum in the family's unit.
prometheus::ClientMetric::Histogram histogram_of(const MetricFamilySnapshot& f, const MetricSample& s) {
  prometheus::ClientMetric::Histogram h;
  h.sample_count = s.value;
  h.sample_sum = static_cast<double>(s.sum) / 1e6;
  h.bucket.reserve(f.bounds.size() + 1);
  for (std::size_t b = 0; b < f.bounds.size() && b < s.buckets.size(); ++b)
    h.bucket.push_back({s.buckets[b], static_cast<double>(f.bounds[b]) / 1000.0});
  h.bucket.push_back({s.value, std::numeric_limits<double>::infinity()});
  return h;
}

}  // namespace

std::vector<prometheus::MetricFamily> MeterCollectable::Collect() const {
  const MeterMetrics metrics = meter_.metrics();
  std::vector<prometheus::MetricFamily> out;
  out.reserve(metrics.families.size());
  for (const auto& f : metrics.families) {
    prometheus::MetricFamily family{f.name, f.help, type_of(f.type), {}};
    family.metric.reserve(f.samples.size());
    for (const auto& s : f.samples) {
      prometheus::ClientMetric m;
      m.label.reserve(s.labels.size());
      for (const auto& [name, value] : s.labels) m.label.push_back({name, value});
      const double value = f.thousandths ? static_cast<double>(s.value) / 1000.0 : static_cast<double>(s.value);
      if (f.type == MetricType::histogram)
        m.histogram = histogram_of(f, s);
      else if (f.type == MetricType::counter)
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
