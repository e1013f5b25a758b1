// LeaseMetrics::prometheus(): the lease families of docs/metrics.md
// (lease/lease_families.h) in the Prometheus text format 0.0.4. The lease
// name is a label value: `\`, `"` and a line feed are escaped as the format
// says; any other control byte (which would reach a terminal reading
// /metrics) is written as %XX.
#include <fmt/format.h>

#include <chrono>
#include <iterator>

#include "forgemeter/lease_metrics.h"
#include "lease/lease_families.h"

namespace forgemeter {
namespace {

// The format's escaping of lease_label(): `\`, `"` and a line feed.
std::string label_value(std::string_view v) {
  std::string out;
  for (const char c : lease_detail::lease_label(v)) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void family(std::string& out, const lease_detail::LeaseFamily& f) {
  fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", f.name, f.help, f.name, f.type);
}

template <class V>  // an integer exactly, a double as the shortest text that reads back
void sample(std::string& out, std::string_view name, const std::string& lease, V value) {
  fmt::format_to(std::back_inserter(out), "{}{{lease=\"{}\"}} {}\n", name, lease, value);
}

void histograms(std::string& out, const LeaseFigures& f, const std::string& lease) {
  constexpr std::string_view h = lease_detail::kStoreDurationFamily.name;
  family(out, lease_detail::kStoreDurationFamily);
  auto it = std::back_inserter(out);
  for (std::size_t op = 0; op < kLeaseOps; ++op) {
    const std::string_view o = to_string(static_cast<LeaseOp>(op));
    const LeaseOpFigures& x = f.ops[op];
    for (std::size_t i = 0; i < kLeaseStoreBuckets.size(); ++i)
      fmt::format_to(it, "{}_bucket{{lease=\"{}\",op=\"{}\",le=\"{}\"}} {}\n", h, lease, o, kLeaseStoreBuckets[i],
                     x.buckets[i]);
    fmt::format_to(it, "{}_bucket{{lease=\"{}\",op=\"{}\",le=\"+Inf\"}} {}\n", h, lease, o, x.count);
    fmt::format_to(it, "{}_sum{{lease=\"{}\",op=\"{}\"}} {}\n", h, lease, o, x.sum_seconds);
    fmt::format_to(it, "{}_count{{lease=\"{}\",op=\"{}\"}} {}\n", h, lease, o, x.count);
  }
  constexpr std::string_view e = lease_detail::kStoreErrorsFamily.name;
  family(out, lease_detail::kStoreErrorsFamily);
  for (std::size_t op = 0; op < kLeaseOps; ++op)
    fmt::format_to(it, "{}{{lease=\"{}\",op=\"{}\"}} {}\n", e, lease, to_string(static_cast<LeaseOp>(op)),
                   f.ops[op].errors);
}

}  // namespace

std::string LeaseMetrics::prometheus() const {
  const LeaseFigures f = figures();
  const std::string lease = label_value(f.lease);
  std::string out;
  using namespace lease_detail;
  family(out, kLeaderFamily);
  sample(out, kLeaderFamily.name, lease, f.leader ? 1 : 0);
  family(out, kTermFamily);
  sample(out, kTermFamily.name, lease, f.term);
  family(out, kChangesFamily);
  sample(out, kChangesFamily.name, lease, f.changes);
  family(out, kTtlFamily);
  sample(out, kTtlFamily.name, lease, std::chrono::duration<double>(f.ttl).count());
  family(out, kLastRenewalFamily);
  sample(out, kLastRenewalFamily.name, lease, lease_detail::epoch_seconds(f.last_renewal));
  family(out, kLastHeldFamily);
  sample(out, kLastHeldFamily.name, lease, lease_detail::epoch_seconds(f.last_held));
  histograms(out, f, lease);
  return out;
}

}  // namespace forgemeter
