// retry_policy.h — whether one hop's outcome is tried again, and after how long.
//
// Pure decisions over the RetryOptions in forgemeter/rate_limits.h:
//   * a spent primary budget (remaining 0, or a GraphQL answer, even a 200,
//     whose errors say RATE_LIMITED) is never retried: budget_exhausted;
//   * a secondary rate limit (class `secondary`), any method: retried after
//     its wait (Retry-After, or the default when absent) when that is at most
//     max_retry_after;
//   * a hop whose body began to reach a Request::on_body is never retried,
//     nor one whose body was read from a Request::body_source;
//   * idempotent methods: connect_failed / connection_dropped, or 502/503/504,
//     retried after a jittered exponential backoff.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "forgemeter/transport.h"

namespace forgemeter::transport_detail {

struct HopOutcome {
  std::string_view method;
  TransportErrc error = TransportErrc::ok;  // of the exchange, before policy
  int status = kNoAnswer;
  bool budget_spent = false;     // the answer's remaining budget read 0, or its GraphQL errors say RATE_LIMITED
  bool graphql_limited = false;  // a GraphQL answer whose errors say RATE_LIMITED (any status)
  bool secondary = false;        // the answer is a secondary rate limit
  // A secondary limit's wait, and whether a Retry-After said so (else it is the default).
  std::chrono::seconds secondary_wait{};
  bool retry_after_given = false;
  int retries_done = 0;         // for this hop
  bool body_delivered = false;  // some of its body reached a Request::on_body: never retried
  bool fed = false;             // its body was read from a Request::body_source: never retried
  // What is left of the request's total_timeout: a wait as long is not made.
  Duration time_left = Duration::max();
};

struct RetryDecision {
  bool retry = false;
  Duration wait{};
  TransportError error;  // what to report when not retried (may be ok)
};

bool is_idempotent(std::string_view method) noexcept;

RetryDecision decide_retry(const RetryOptions& policy, const HopOutcome& outcome);

}  // namespace forgemeter::transport_detail
