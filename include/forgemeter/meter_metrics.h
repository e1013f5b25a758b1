// forgemeter/meter_metrics.h — a snapshot of a Meter's cumulative counters.
//
// Meter::metrics() returns the families docs/metrics.md lists for a Meter, as
// plain data: Meter::prometheus() writes them as exposition text and
// forgemeter::MeterCollectable (forgemeter/prometheus.h) hands them to a
// prometheus::Registry, so both say the same numbers under the same names.
//
// A family has a name, a help text, a type (counter, gauge or histogram) and
// samples; a sample has label pairs (names fixed by the family, values as the
// meter holds them, unescaped: a host or lane may hold any byte a caller gave)
// and a value. A value is an unsigned integer; a family with `thousandths`
// set holds thousandths of its unit (forgemeter_wait_seconds_total counts
// milliseconds) so no value is rounded on its way to text.
//
// A histogram family (forgemeter_request_duration_seconds) has `bounds`, its
// buckets' upper bounds (le) in thousandths of its unit, ascending, +Inf
// implied; each sample's `buckets` holds one cumulative count per bound, its
// `value` the count of every observation (the +Inf bucket) and `sum` their
// sum in millionths of the unit.
//
// Ownership: a value, owning its strings. Thread-safety: none needed (a copy).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace forgemeter {

enum class MetricType { counter, gauge, histogram };

struct MetricSample {
  std::vector<std::pair<std::string, std::string>> labels;  // name, raw value
  std::uint64_t value = 0;                                  // a histogram's: its count
  std::vector<std::uint64_t> buckets{};                     // a histogram's cumulative counts, one per bound
  std::uint64_t sum = 0;                                    // a histogram's sum, in millionths of the unit
};

struct MetricFamilySnapshot {
  std::string name;
  std::string help;
  MetricType type = MetricType::counter;
  bool thousandths = false;  // values in thousandths of the unit
  std::vector<MetricSample> samples;
  std::vector<std::uint64_t> bounds{};  // a histogram's upper bounds, in thousandths of the unit
};

struct MeterMetrics {
  std::vector<MetricFamilySnapshot> families;  // in the order docs/metrics.md lists them
};

}  // namespace forgemeter
