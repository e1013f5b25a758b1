// forgemeter/prometheus.h — a Meter's families in a prometheus::Registry.
//
// forgemeter::prometheus, a component on prometheus-cpp of its own (option
// FORGEMETER_PROMETHEUS; find_package(forgemeter COMPONENTS prometheus)), so
// the meter and the transport never need it. A service that already serves a
// prometheus::Registry (prometheus-cpp's Exposer, or its own handler)
// registers a MeterCollectable there; each scrape calls Collect(), which reads
// Meter::metrics() — the families and numbers Meter::prometheus() writes as
// text (docs/metrics.md lists them). Label values go to prometheus-cpp raw:
// its serializer escapes them, whatever bytes a host or lane holds. The same
// component holds a Transport's (forgemeter/transport_collectable.h) and a
// campaign's (forgemeter/lease_collectable.h); prometheus-cpp 1.0 takes each
// at the Exposer (RegisterCollectable), beside the Registry it serves.
//
// Ownership: the collectable borrows the Meter, which must outlive it and
// every scrape that may still call Collect() (unregister it from the
// Registry, or destroy the Exposer, before the Meter). Thread-safety:
// Collect() may run on any scrape thread while requests are recorded.
// Errors: Collect() never throws except std::bad_alloc.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <vector>

#include "forgemeter/export.h"
#include "forgemeter/meter.h"

namespace forgemeter {

class FORGEMETER_API MeterCollectable : public prometheus::Collectable {
 public:
  explicit MeterCollectable(const Meter& meter) noexcept : meter_(meter) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const Meter& meter_;
};

}  // namespace forgemeter
