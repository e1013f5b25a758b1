// LeaseMetrics::prometheus(): the lease families of docs/metrics.md in the
// Prometheus text format 0.0.4. The lease name is a label value: `\`, `"` and
// a line feed are escaped as the format says; any other control byte (which
// would reach a terminal reading /metrics) is written as %XX.
#include <fmt/format.h>

#include <chrono>
#include <iterator>

#include "forgemeter/lease_metrics.h"

namespace forgemeter {
namespace {

std::string label_value(std::string_view v) {
  std::string out;
  for (const char c : v) {
    const auto b = static_cast<unsigned char>(c);
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (b < 0x20 || b == 0x7f) {
      out += fmt::format("%{:02X}", b);
    } else {
      out += c;
    }
  }
  return out;
}

double seconds(UtcMillis t) { return static_cast<double>(t.time_since_epoch().count()) / 1000.0; }

void family(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

template <class V>  // an integer exactly, a double as the shortest text that reads back
void sample(std::string& out, std::string_view name, const std::string& lease, V value) {
  fmt::format_to(std::back_inserter(out), "{}{{lease=\"{}\"}} {}\n", name, lease, value);
}

void histograms(std::string& out, const LeaseFigures& f, const std::string& lease) {
  constexpr std::string_view h = "forgemeter_lease_store_request_duration_seconds";
  family(out, h, "histogram", "Lease store round trips of answered calls, by op.");
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
  constexpr std::string_view e = "forgemeter_lease_store_errors_total";
  family(out, e, "counter", "Lease store calls without an answer, by op.");
  for (std::size_t op = 0; op < kLeaseOps; ++op)
    fmt::format_to(it, "{}{{lease=\"{}\",op=\"{}\"}} {}\n", e, lease, to_string(static_cast<LeaseOp>(op)),
                   f.ops[op].errors);
}

}  // namespace

std::string LeaseMetrics::prometheus() const {
  const LeaseFigures f = figures();
  const std::string lease = label_value(f.lease);
  std::string out;
  family(out, "forgemeter_lease_leader", "gauge", "1 while this replica's term is valid, else 0.");
  sample(out, "forgemeter_lease_leader", lease, f.leader ? 1 : 0);
  family(out, "forgemeter_lease_term", "gauge", "The term this replica last held (0: never).");
  sample(out, "forgemeter_lease_term", lease, f.term);
  family(out, "forgemeter_lease_changes_total", "counter", "Changes of hands this replica saw.");
  sample(out, "forgemeter_lease_changes_total", lease, f.changes);
  family(out, "forgemeter_lease_ttl_seconds", "gauge", "The campaign's TTL.");
  sample(out, "forgemeter_lease_ttl_seconds", lease, std::chrono::duration<double>(f.ttl).count());
  family(out, "forgemeter_lease_last_renewal_timestamp_seconds", "gauge",
         "The sending of the last proven acquire or renewal of this replica's term.");
  sample(out, "forgemeter_lease_last_renewal_timestamp_seconds", lease, seconds(f.last_renewal));
  family(out, "forgemeter_lease_last_held_timestamp_seconds", "gauge",
         "The last time this replica knew the lease held, by itself or another.");
  sample(out, "forgemeter_lease_last_held_timestamp_seconds", lease, seconds(f.last_held));
  histograms(out, f, lease);
  return out;
}

}  // namespace forgemeter
