// lease_metrics_text.h — the lease families (lease_families.h) of several
// campaigns in one Prometheus text: each family's HELP and TYPE once, then
// its samples for every lease, as the format wants a family's samples
// together. LeaseMetrics::prometheus() is the text of one campaign; the
// elector's (proxy --elect on its /metrics) is that of every lease it
// campaigns for.
#pragma once

#include <string>
#include <vector>

#include "forgemeter/lease_metrics.h"

namespace forgemeter::lease_detail {

std::string prometheus_text(const std::vector<LeaseFigures>& figures);

}  // namespace forgemeter::lease_detail
