#include "testforge/secondary.h"

#include <algorithm>

namespace forgemeter::testforge {
namespace {

std::int64_t minute_of(UtcMillis at) { return std::chrono::floor<std::chrono::minutes>(at).time_since_epoch().count(); }

// Whole seconds from `at` to `until`, rounded up: a client waiting that long
// arrives after the window, never inside it.
std::int64_t seconds_left(UtcMillis at, UtcMillis until) {
  return std::chrono::ceil<std::chrono::seconds>(until - at).count();
}

}  // namespace

SecondaryLimits::Verdict SecondaryLimits::verdict(const Limited& l, UtcMillis at) const {
  Verdict v;
  v.limited = true;
  v.status = l.status;
  if (l.send_retry_after) v.retry_after_s = seconds_left(at, l.until);
  return v;
}

void SecondaryLimits::trip(std::uint64_t installation, UtcMillis at) {
  const bool send = rule_.retry_after_s.has_value();
  const int window_s = send ? *rule_.retry_after_s : rule_.penalty_s;
  limited_[installation] = Limited{at + std::chrono::seconds(window_s), send, rule_.status};
}

SecondaryLimits::Verdict SecondaryLimits::arrive(std::uint64_t installation, bool is_post, UtcMillis at,
                                                 Connection connection) {
  std::lock_guard lock(mu_);
  // A connection's previous request that never reported finished() is over
  // now (one request at a time per connection): without this, a skipped
  // finished() would keep its installation in flight for good.
  if (auto stale = admitted_.find(connection); stale != admitted_.end()) {
    --in_flight_[stale->second];
    admitted_.erase(stale);
  }
  if (auto it = limited_.find(installation); it != limited_.end()) {
    if (at < it->second.until) return verdict(it->second, at);
    limited_.erase(it);
  }
  int& flying = in_flight_[installation];
  bool trips = rule_.max_in_flight > 0 && flying >= rule_.max_in_flight;
  Posts& posts = posts_[installation];
  if (is_post && rule_.max_posts_per_minute > 0) {
    if (posts.minute != minute_of(at)) posts = Posts{minute_of(at), 0};
    trips = trips || posts.count >= rule_.max_posts_per_minute;
  }
  if (trips) {
    trip(installation, at);
    return verdict(limited_[installation], at);
  }
  if (is_post) ++posts.count;
  ++flying;
  int& peak = peak_in_flight_[installation];
  peak = std::max(peak, flying);
  admitted_[connection] = installation;
  return {};
}

void SecondaryLimits::finished(Connection connection) {
  std::lock_guard lock(mu_);
  auto it = admitted_.find(connection);
  if (it == admitted_.end()) return;
  --in_flight_[it->second];
  admitted_.erase(it);
}

void SecondaryLimits::limit(std::uint64_t installation, UtcMillis until, bool send_retry_after, int status) {
  std::lock_guard lock(mu_);
  Limited& l = limited_[installation];
  l.until = std::max(l.until, until);
  l.send_retry_after = send_retry_after;
  l.status = status ? status : rule_.status;
}

std::optional<UtcMillis> SecondaryLimits::limited_until(std::uint64_t installation, UtcMillis now) const {
  std::lock_guard lock(mu_);
  auto it = limited_.find(installation);
  if (it == limited_.end() || now >= it->second.until) return std::nullopt;
  return it->second.until;
}

int SecondaryLimits::peak_in_flight(std::uint64_t installation) const {
  std::lock_guard lock(mu_);
  auto it = peak_in_flight_.find(installation);
  return it == peak_in_flight_.end() ? 0 : it->second;
}

int SecondaryLimits::in_flight(std::uint64_t installation) const {
  std::lock_guard lock(mu_);
  auto it = in_flight_.find(installation);
  return it == in_flight_.end() ? 0 : it->second;
}

}  // namespace forgemeter::testforge
