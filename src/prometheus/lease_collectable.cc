#include "forgemeter/lease_collectable.h"

#include <chrono>
#include <string>

#include "lease/lease_families.h"

namespace forgemeter {

namespace {

using lease_detail::LeaseFamily;

prometheus::MetricType type_of(const LeaseFamily& f) {
  if (f.type == "counter") return prometheus::MetricType::Counter;
  if (f.type == "histogram") return prometheus::MetricType::Histogram;
  return prometheus::MetricType::Gauge;
}

prometheus::MetricFamily family(const LeaseFamily& f) {
  return {std::string(f.name), std::string(f.help), type_of(f), {}};
}

// A family of one sample labelled with the lease.
prometheus::MetricFamily single(const LeaseFamily& f, const std::string& lease, double value) {
  prometheus::MetricFamily out = family(f);
  prometheus::ClientMetric m;
  m.label = {{"lease", lease}};
  (f.type == "counter" ? m.counter.value : m.gauge.value) = value;
  out.metric.push_back(std::move(m));
  return out;
}

// The store's round trips and errors, one series of each per op.
void store_families(const LeaseFigures& f, const std::string& lease, std::vector<prometheus::MetricFamily>& out) {
  prometheus::MetricFamily durations = family(lease_detail::kStoreDurationFamily);
  prometheus::MetricFamily errors = family(lease_detail::kStoreErrorsFamily);
  for (std::size_t op = 0; op < kLeaseOps; ++op) {
    const std::vector<prometheus::ClientMetric::Label> labels{{"lease", lease},
                                                              {"op", std::string(to_string(static_cast<LeaseOp>(op)))}};
    const LeaseOpFigures& x = f.ops[op];
    prometheus::ClientMetric h;
    h.label = labels;
    h.histogram.sample_count = x.count;
    h.histogram.sample_sum = x.sum_seconds;
    for (std::size_t i = 0; i < kLeaseStoreBuckets.size(); ++i)
      h.histogram.bucket.push_back({x.buckets[i], kLeaseStoreBuckets[i]});  // +Inf: the serializer's, the count
    durations.metric.push_back(std::move(h));
    prometheus::ClientMetric e;
    e.label = labels;
    e.counter.value = static_cast<double>(x.errors);
    errors.metric.push_back(std::move(e));
  }
  out.push_back(std::move(durations));
  out.push_back(std::move(errors));
}

}  // namespace

std::vector<prometheus::MetricFamily> LeaseCollectable::Collect() const {
  const LeaseFigures f = metrics_.figures();
  const std::string lease = lease_detail::lease_label(f.lease);
  using namespace lease_detail;
  std::vector<prometheus::MetricFamily> out;
  out.reserve(8);
  out.push_back(single(kLeaderFamily, lease, f.leader ? 1 : 0));
  out.push_back(single(kTermFamily, lease, static_cast<double>(f.term)));
  out.push_back(single(kChangesFamily, lease, static_cast<double>(f.changes)));
  out.push_back(single(kTtlFamily, lease, std::chrono::duration<double>(f.ttl).count()));
  out.push_back(single(kLastRenewalFamily, lease, lease_detail::epoch_seconds(f.last_renewal)));
  out.push_back(single(kLastHeldFamily, lease, lease_detail::epoch_seconds(f.last_held)));
  store_families(f, lease, out);
  return out;
}

}  // namespace forgemeter
