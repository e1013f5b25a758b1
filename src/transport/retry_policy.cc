#include "transport/retry_policy.h"

#include <random>

namespace forgemeter::transport_detail {
namespace {

Duration backoff(const RetryOptions& policy, int retries_done) {
  using std::chrono::milliseconds;
  milliseconds d = policy.base_backoff;
  for (int i = 0; i < retries_done && d < policy.max_backoff; ++i) d *= 2;
  if (d > policy.max_backoff) d = policy.max_backoff;
  thread_local std::minstd_rand rng{std::random_device{}()};
  std::uniform_int_distribution<long long> jitter(d.count() * 500, d.count() * 1000);  // [d/2, d] in µs
  return std::chrono::microseconds(jitter(rng));
}

}  // namespace

bool is_idempotent(std::string_view m) noexcept {
  return m == "GET" || m == "HEAD" || m == "PUT" || m == "DELETE" || m == "OPTIONS";
}

RetryDecision decide_retry(const RetryOptions& policy, const HopOutcome& o) {
  RetryDecision d;
  const bool may_retry = policy.enabled && o.retries_done < policy.max_retries && !o.body_delivered && !o.fed;
  const bool limited = o.status == 403 || o.status == 429;
  if (o.budget_spent && o.error == TransportErrc::ok) {
    if (limited || o.graphql_limited)
      d.error = {TransportErrc::budget_exhausted,
                 "HTTP " + std::to_string(o.status) + ": the primary rate limit is spent (" +
                     (o.graphql_limited ? "GraphQL RATE_LIMITED" : "remaining 0") + "); not retried"};
    return d;  // a spent budget is never retried, whatever the status
  }
  if (o.secondary && o.error == TransportErrc::ok) {
    const auto wait = o.secondary_wait, max = policy.max_retry_after;
    if (may_retry && wait <= max && wait < o.time_left) {
      d.retry = true;
      d.wait = wait;
      return d;
    }
    const std::string why = !policy.enabled    ? "; retries are off"
                            : wait > max       ? ", over the maximum of " + std::to_string(max.count()) + "s"
                            : o.body_delivered ? "; its body was already streamed"
                            : o.fed            ? "; its request body came from a source, sent once"
                            : !may_retry       ? "; retries exhausted"
                                               : ", past the request's total_timeout";
    d.error = {TransportErrc::secondary_rate_limited,
               "HTTP " + std::to_string(o.status) + ": secondary rate limit (" +
                   (o.retry_after_given ? "Retry-After " : "no Retry-After: wait ") + std::to_string(wait.count()) +
                   "s" + why + ")"};
    return d;
  }
  if (!may_retry || !is_idempotent(o.method)) return d;
  const bool connection_failed =
      o.error == TransportErrc::connect_failed || o.error == TransportErrc::connection_dropped;
  const bool gateway = o.error == TransportErrc::ok && (o.status == 502 || o.status == 503 || o.status == 504);
  if (connection_failed || gateway) {
    d.wait = backoff(policy, o.retries_done);
    d.retry = d.wait < o.time_left;  // else the answer or failure at hand stands
  }
  return d;
}

}  // namespace forgemeter::transport_detail
