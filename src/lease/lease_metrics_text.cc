// LeaseMetrics::prometheus() and lease_detail::prometheus_text(): the lease
// families of docs/metrics.md (lease/lease_families.h) in the Prometheus
// text format 0.0.4, for one campaign or several. The lease
// name is a label value: `\`, `"` and a line feed are escaped as the format
// says; any other control byte (which would reach a terminal reading
// /metrics) is written as %XX.
#include <fmt/format.h>

#include <chrono>
#include <iterator>
#include <vector>

#include "forgemeter/lease_metrics.h"
#include "lease/lease_families.h"
#include "lease/lease_metrics_text.h"

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

struct Lease {
  LeaseFigures f;
  std::string label;  // its name as a label value
};

// A gauge or counter family: one sample per lease, `value` read from its figures.
template <class Value>
void simple(std::string& out, const lease_detail::LeaseFamily& f, const std::vector<Lease>& leases, Value value) {
  family(out, f);
  for (const Lease& l : leases)  // an integer exactly, a double as the shortest text that reads back
    fmt::format_to(std::back_inserter(out), "{}{{lease=\"{}\"}} {}\n", f.name, l.label, value(l.f));
}

void histograms(std::string& out, const std::vector<Lease>& leases) {
  constexpr std::string_view h = lease_detail::kStoreDurationFamily.name;
  family(out, lease_detail::kStoreDurationFamily);
  auto it = std::back_inserter(out);
  for (const Lease& l : leases)
    for (std::size_t op = 0; op < kLeaseOps; ++op) {
      const std::string_view o = to_string(static_cast<LeaseOp>(op));
      const LeaseOpFigures& x = l.f.ops[op];
      for (std::size_t i = 0; i < kLeaseStoreBuckets.size(); ++i)
        fmt::format_to(it, "{}_bucket{{lease=\"{}\",op=\"{}\",le=\"{}\"}} {}\n", h, l.label, o, kLeaseStoreBuckets[i],
                       x.buckets[i]);
      fmt::format_to(it, "{}_bucket{{lease=\"{}\",op=\"{}\",le=\"+Inf\"}} {}\n", h, l.label, o, x.count);
      fmt::format_to(it, "{}_sum{{lease=\"{}\",op=\"{}\"}} {}\n", h, l.label, o, x.sum_seconds);
      fmt::format_to(it, "{}_count{{lease=\"{}\",op=\"{}\"}} {}\n", h, l.label, o, x.count);
    }
  constexpr std::string_view e = lease_detail::kStoreErrorsFamily.name;
  family(out, lease_detail::kStoreErrorsFamily);
  for (const Lease& l : leases)
    for (std::size_t op = 0; op < kLeaseOps; ++op)
      fmt::format_to(it, "{}{{lease=\"{}\",op=\"{}\"}} {}\n", e, l.label, to_string(static_cast<LeaseOp>(op)),
                     l.f.ops[op].errors);
}

}  // namespace

std::string lease_detail::prometheus_text(const std::vector<LeaseFigures>& figures) {
  std::vector<Lease> leases;
  leases.reserve(figures.size());
  for (const LeaseFigures& f : figures) leases.push_back({f, label_value(f.lease)});
  std::string out;
  using namespace lease_detail;
  simple(out, kLeaderFamily, leases, [](const LeaseFigures& f) { return f.leader ? 1 : 0; });
  simple(out, kTermFamily, leases, [](const LeaseFigures& f) { return f.term; });
  simple(out, kChangesFamily, leases, [](const LeaseFigures& f) { return f.changes; });
  simple(out, kTtlFamily, leases, [](const LeaseFigures& f) { return std::chrono::duration<double>(f.ttl).count(); });
  simple(out, kLastRenewalFamily, leases, [](const LeaseFigures& f) { return epoch_seconds(f.last_renewal); });
  simple(out, kLastHeldFamily, leases, [](const LeaseFigures& f) { return epoch_seconds(f.last_held); });
  histograms(out, leases);
  return out;
}

std::string LeaseMetrics::prometheus() const { return lease_detail::prometheus_text({figures()}); }

}  // namespace forgemeter
