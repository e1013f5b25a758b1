// LeaseMetrics: the figures a campaign feeds (lease/metrics_state.h) and their
// reads (forgemeter/lease_metrics.h). Exposition text: lease_metrics_text.cc.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "forgemeter/lease_metrics.h"
#include "lease/metrics_state.h"

namespace forgemeter {

using core_detail::MutexLock;

std::string_view to_string(LeaseOp op) noexcept {
  switch (op) {
    case LeaseOp::acquire: return "acquire";
    case LeaseOp::renew: return "renew";
    case LeaseOp::release: return "release";
    case LeaseOp::inspect: return "inspect";
  }
  return "unknown";
}

void LeaseMetrics::State::attach(std::string_view name, Duration ttl, const Clock& clock) {
  MutexLock lock(mu_);
  f_.lease = std::string(name);
  f_.ttl = ttl;
  clock_ = &clock;
  last_answer_ = clock.steady_now();
  // An unseen lease ages from the campaign's start, never from 1970 (docs/metrics.md).
  f_.last_held = std::max(f_.last_held, clock.now());
}

void LeaseMetrics::State::detach() {
  MutexLock lock(mu_);
  clock_ = nullptr;
  term_.reset();
}

void LeaseMetrics::State::term_began(std::shared_ptr<const Term::State> term) {
  MutexLock lock(mu_);
  f_.term = term->number;
  term_ = std::move(term);
}

void LeaseMetrics::State::term_ended() {
  MutexLock lock(mu_);
  term_.reset();
}

void LeaseMetrics::State::call(LeaseOp op, SteadyTime sent, const LeaseResult& r, bool cut) {
  MutexLock lock(mu_);
  if (clock_ == nullptr) return;
  LeaseOpFigures& o = f_.ops[static_cast<std::size_t>(op)];
  if (!r.answered()) {
    if (!cut) ++o.errors;
    return;
  }
  const SteadyTime now = clock_->steady_now();
  last_answer_ = std::max(last_answer_, now);
  const double s = std::chrono::duration<double>(std::max(now - sent, Duration::zero())).count();
  for (std::size_t i = 0; i < kLeaseStoreBuckets.size(); ++i)
    if (s <= kLeaseStoreBuckets[i]) ++o.buckets[i];
  ++o.count;
  o.sum_seconds += s;
}

void LeaseMetrics::State::held_by(std::string_view holder) {
  MutexLock lock(mu_);
  if (clock_ == nullptr || holder.empty()) return;
  f_.last_held = std::max(f_.last_held, clock_->now());
  if (!last_holder_.empty() && last_holder_ != holder) ++f_.changes;
  last_holder_ = std::string(holder);
}

void LeaseMetrics::State::proven(WallTime sent) {
  MutexLock lock(mu_);
  f_.last_renewal = std::max(f_.last_renewal, lease_stamp(sent));
}

LeaseFigures LeaseMetrics::State::figures() const {
  MutexLock lock(mu_);
  LeaseFigures f = f_;
  f.leader = term_ != nullptr && term_->valid();  // the Term's own proof, read now
  return f;
}

std::optional<std::string> LeaseMetrics::State::health() const {
  MutexLock lock(mu_);
  if (clock_ == nullptr) return std::nullopt;
  const SteadyTime now = clock_->steady_now();
  auto secs = [](Duration d) { return std::chrono::duration<double>(d).count(); };
  // The campaign steps down at the deadline; T/6 past it, with the term
  // still held, the campaign thread is stuck (the store's expiry is near).
  if (term_ != nullptr && term_->held.load(std::memory_order_acquire) && now >= term_->deadline() + f_.ttl / 6)
    return fmt::format("term {} lapsed {:.3f}s ago without stepping down", term_->number,
                       secs(now - term_->deadline()));
  if (now - last_answer_ > f_.ttl)
    return fmt::format("no answer from the lease store for {:.3f}s (TTL {:.3f}s)", secs(now - last_answer_),
                       secs(f_.ttl));
  return std::nullopt;
}

LeaseMetrics::LeaseMetrics() : state_(std::make_shared<State>()) {}
LeaseFigures LeaseMetrics::figures() const { return state_->figures(); }
std::optional<std::string> LeaseMetrics::health() const { return state_->health(); }

}  // namespace forgemeter
