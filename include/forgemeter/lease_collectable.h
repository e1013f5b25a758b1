// forgemeter/lease_collectable.h — a campaign's LeaseMetrics as prometheus-cpp
// families.
//
//   auto lease = std::make_shared<forgemeter::LeaseCollectable>(metrics);
//   exposer.RegisterCollectable(lease);  // prometheus-cpp 1.0: beside your Registry
//
// Part of forgemeter::prometheus (see forgemeter/prometheus.h). Each scrape
// calls Collect(), which reads LeaseMetrics::figures(): the lease families of
// docs/metrics.md with the names, labels, help and values
// LeaseMetrics::prometheus() writes — the leader and term gauges, changes of
// hands, the TTL, the renewal and held timestamps, the store round-trip
// histogram and errors by op. The lease name goes to prometheus-cpp with any
// control byte but a line feed as %XX (as the text has it); its serializer
// escapes the rest.
//
// Ownership: the collectable borrows the LeaseMetrics, which must outlive it
// and every scrape that may still call Collect() (remove it from the Exposer
// first). Thread-safety: Collect() may run on any scrape thread while the
// campaign runs; it never waits on the store. Errors: Collect() never throws
// except std::bad_alloc.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <vector>

#include "forgemeter/export.h"
#include "forgemeter/lease_metrics.h"

namespace forgemeter {

class FORGEMETER_API LeaseCollectable : public prometheus::Collectable {
 public:
  explicit LeaseCollectable(const LeaseMetrics& metrics) noexcept : metrics_(metrics) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const LeaseMetrics& metrics_;
};

}  // namespace forgemeter
