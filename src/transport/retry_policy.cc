#include "transport/retry_policy.h"

#include <charconv>
#include <random>

namespace forgemeter::transport_detail {
namespace {

std::optional<long long> seconds_of(std::string_view v) {
  long long s = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), s);
  if (ec != std::errc{} || p != v.data() + v.size() || s < 0) return std::nullopt;
  return s;
}

Duration backoff(const RetryPolicy& policy, int retries_done) {
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

RetryDecision decide(const RetryPolicy& policy, const HopOutcome& o) {
  RetryDecision d;
  const bool may_retry = policy.enabled && o.retries_done < policy.max_retries;
  const bool limited = o.status == 403 || o.status == 429;
  if (o.remaining == "0" && o.error == TransportErrc::ok) {
    if (limited)
      d.error = {TransportErrc::budget_exhausted,
                 "HTTP " + std::to_string(o.status) +
                     ": the primary rate limit is spent (X-RateLimit-Remaining 0); not retried"};
    return d;  // a spent budget is never retried, whatever the status
  }
  if (limited && !o.retry_after.empty()) {
    const auto secs = seconds_of(o.retry_after);
    const auto max = policy.max_retry_after.count();
    if (may_retry && secs && *secs <= max) {
      d.retry = true;
      d.wait = std::chrono::seconds(*secs);
      return d;
    }
    d.error = {TransportErrc::secondary_rate_limited,
               "HTTP " + std::to_string(o.status) + ": secondary rate limit (Retry-After " +
                   (secs ? std::to_string(*secs) + "s" : std::string("unreadable")) +
                   (!policy.enabled ? "; retries are off" : secs && *secs > max ? ", over the maximum of " + std::to_string(max) + "s" : "; retries exhausted") +
                   ")"};
    return d;
  }
  if (!may_retry || !is_idempotent(o.method)) return d;
  const bool connection_failed =
      o.error == TransportErrc::connect_failed || o.error == TransportErrc::connection_dropped;
  const bool gateway = o.error == TransportErrc::ok && (o.status == 502 || o.status == 503 || o.status == 504);
  if (connection_failed || gateway) {
    d.retry = true;
    d.wait = backoff(policy, o.retries_done);
  }
  return d;
}

}  // namespace forgemeter::transport_detail
