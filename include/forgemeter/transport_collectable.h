// forgemeter/transport_collectable.h — a Transport's requests in flight and
// waiting, as prometheus-cpp families.
//
//   auto load = std::make_shared<forgemeter::TransportCollectable>(transport);
//   exposer.RegisterCollectable(load);  // prometheus-cpp 1.0: beside your Registry
//
// Part of forgemeter::prometheus (see forgemeter/prometheus.h). Each scrape
// calls Collect(), which reads Transport::figures(): the gauges
// forgemeter_requests_in_flight{installation} (hops on the wire) and
// forgemeter_requests_waiting{installation,cause} (requests held before the
// wire by a pause, pacing or a secondary limit) of docs/metrics.md, one
// series per installation seen (installation="0": none; "other": those past
// TransportOptions::max_installations). An installation once seen keeps its
// series, at 0 while idle.
//
// Ownership: the collectable borrows the Transport, which must outlive it and
// every scrape that may still call Collect() (remove it from the Exposer
// first). Thread-safety: Collect() may run on any scrape thread while
// requests are sent; it never waits on the wire. Errors: Collect() never
// throws except std::bad_alloc.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <vector>

#include "forgemeter/export.h"
#include "forgemeter/transport.h"

namespace forgemeter {

class FORGEMETER_API TransportCollectable : public prometheus::Collectable {
 public:
  explicit TransportCollectable(const Transport& transport) noexcept : transport_(transport) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const Transport& transport_;
};

}  // namespace forgemeter
