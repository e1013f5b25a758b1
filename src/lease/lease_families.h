// lease_families.h — the lease families' names, types and help, and the lease
// name as a label value: one table for LeaseMetrics::prometheus() (the text)
// and LeaseCollectable (prometheus-cpp's families), so both say the same.
//
// Header-only constants and two inline functions: the prometheus room reads
// them without linking anything of the lease room's private parts.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "forgemeter/clock.h"

namespace forgemeter::lease_detail {

struct LeaseFamily {
  std::string_view name;
  std::string_view type;  // as the text format's TYPE line spells it
  std::string_view help;
};

inline constexpr LeaseFamily kLeaderFamily{"forgemeter_lease_leader", "gauge",
                                           "1 while this replica's term is valid, else 0."};
inline constexpr LeaseFamily kTermFamily{"forgemeter_lease_term", "gauge",
                                         "The term this replica last held (0: never)."};
inline constexpr LeaseFamily kChangesFamily{"forgemeter_lease_changes_total", "counter",
                                            "Changes of hands this replica saw."};
inline constexpr LeaseFamily kTtlFamily{"forgemeter_lease_ttl_seconds", "gauge", "The campaign's TTL."};
inline constexpr LeaseFamily kLastRenewalFamily{
    "forgemeter_lease_last_renewal_timestamp_seconds", "gauge",
    "The sending of the last proven acquire or renewal of this replica's term."};
inline constexpr LeaseFamily kLastHeldFamily{"forgemeter_lease_last_held_timestamp_seconds", "gauge",
                                             "The last time this replica knew the lease held, by itself or another."};
// An instant as the *_timestamp_seconds families give it.
inline double epoch_seconds(UtcMillis t) noexcept { return static_cast<double>(t.time_since_epoch().count()) / 1000.0; }

inline constexpr LeaseFamily kStoreDurationFamily{"forgemeter_lease_store_request_duration_seconds", "histogram",
                                                  "Lease store round trips of answered calls, by op."};
inline constexpr LeaseFamily kStoreErrorsFamily{"forgemeter_lease_store_errors_total", "counter",
                                                "Lease store calls without an answer, by op."};

// The lease name as a label value before the format's own escaping (`\`,
// `"` and a line feed): any other control byte, which would reach a terminal
// reading /metrics, is written %XX.
inline std::string lease_label(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (const char c : name) {
    const auto b = static_cast<unsigned char>(c);
    if ((b < 0x20 && c != '\n') || b == 0x7f) {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", b);
      out += hex;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace forgemeter::lease_detail
