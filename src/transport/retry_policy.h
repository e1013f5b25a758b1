// retry_policy.h — whether one hop's outcome is tried again, and after how long.
//
// Pure decisions over the RetryPolicy in forgemeter/transport.h:
//   * remaining 0 (X-RateLimit-Remaining) is never retried: budget_exhausted;
//   * 403/429 with Retry-After (a secondary rate limit), any method: retried
//     after Retry-After when it is at most max_retry_after;
//   * idempotent methods: connect_failed / connection_dropped, or 502/503/504,
//     retried after a jittered exponential backoff.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "forgemeter/transport.h"

namespace forgemeter::transport_detail {

struct HopOutcome {
  std::string_view method;
  TransportErrc error = TransportErrc::ok;  // of the exchange, before policy
  int status = kNoAnswer;
  std::string_view remaining;    // X-RateLimit-Remaining as received
  std::string_view retry_after;  // Retry-After as received
  int retries_done = 0;          // for this hop
};

struct RetryDecision {
  bool retry = false;
  Duration wait{};
  TransportError error;  // what to report when not retried (may be ok)
};

bool is_idempotent(std::string_view method) noexcept;

RetryDecision decide(const RetryPolicy& policy, const HopOutcome& outcome);

}  // namespace forgemeter::transport_detail
