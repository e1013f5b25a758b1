#include "forgemeter/transport_collectable.h"

#include <string>

namespace forgemeter {

namespace {

// The `cause` label by WaitCause, as forgemeter_wait_seconds_total spells it
// (docs/metrics.md; to_string(WaitCause) is the hourly lines' word).
constexpr std::string_view kCauses[kWaitCauses] = {"pause", "pacing", "secondary"};

std::string installation_label(const InstallationLoad& l) {
  return l.other ? std::string("other") : std::to_string(l.installation);
}

prometheus::ClientMetric gauge(std::vector<prometheus::ClientMetric::Label> labels, std::uint64_t value) {
  prometheus::ClientMetric m;
  m.label = std::move(labels);
  m.gauge.value = static_cast<double>(value);
  return m;
}

}  // namespace

std::vector<prometheus::MetricFamily> TransportCollectable::Collect() const {
  const TransportFigures f = transport_.figures();
  prometheus::MetricFamily in_flight{"forgemeter_requests_in_flight",
                                     "Hops on the wire now, by the installation they are charged to.",
                                     prometheus::MetricType::Gauge,
                                     {}};
  prometheus::MetricFamily waiting{"forgemeter_requests_waiting",
                                   "Requests waiting before the wire now, by installation and cause.",
                                   prometheus::MetricType::Gauge,
                                   {}};
  in_flight.metric.reserve(f.installations.size());
  waiting.metric.reserve(f.installations.size() * kWaitCauses);
  for (const InstallationLoad& l : f.installations) {
    const std::string installation = installation_label(l);
    in_flight.metric.push_back(gauge({{"installation", installation}}, l.in_flight));
    for (std::size_t c = 0; c < kWaitCauses; ++c)
      waiting.metric.push_back(
          gauge({{"installation", installation}, {"cause", std::string(kCauses[c])}}, l.waiting[c]));
  }
  std::vector<prometheus::MetricFamily> out;
  out.push_back(std::move(in_flight));
  out.push_back(std::move(waiting));
  return out;
}

}  // namespace forgemeter
