// The campaign's side of a LeaseMetrics (forgemeter/lease_metrics.h): fed on
// the campaign thread, read from any thread, every field under one mutex.
// MetricsFeed is what campaign.cc calls: a no-op without CampaignSpec::metrics.
// Internal to the lease room.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/mutex.h"
#include "forgemeter/campaign.h"
#include "forgemeter/lease_metrics.h"
#include "lease/term_state.h"

namespace forgemeter {

struct LeaseMetrics::State {
  // A campaign starts feeding: its lease, TTL and clock; last_held starts now.
  void attach(std::string_view name, Duration ttl, const Clock& clock);
  void detach();  // campaign() returns: no term, no clock
  void term_began(std::shared_ptr<const Term::State> term);
  void term_ended();
  // A call sent at `sent` came back with `r`; `cut`: the campaign gave up on it.
  void call(LeaseOp op, SteadyTime sent, const LeaseResult& r, bool cut);
  void held_by(std::string_view holder);  // the store said `holder` holds the lease now
  void proven(WallTime sent);             // an acquire or renewal sent then was granted

  LeaseFigures figures() const;
  std::optional<std::string> health() const;

 private:
  mutable core_detail::Mutex mu_;
  LeaseFigures f_ GUARDED_BY(mu_);
  const Clock* clock_ GUARDED_BY(mu_) = nullptr;
  std::shared_ptr<const Term::State> term_ GUARDED_BY(mu_);
  std::string last_holder_ GUARDED_BY(mu_);
  SteadyTime last_answer_ GUARDED_BY(mu_){};
};

namespace lease_detail {

class MetricsFeed {
 public:
  MetricsFeed(LeaseMetrics* m, std::string_view name, Duration ttl, const Clock& clock)
      : s_(m != nullptr ? &m->state() : nullptr) {
    if (s_ != nullptr) s_->attach(name, ttl, clock);
  }
  ~MetricsFeed() {
    if (s_ != nullptr) s_->detach();
  }
  MetricsFeed(const MetricsFeed&) = delete;
  MetricsFeed& operator=(const MetricsFeed&) = delete;

  LeaseMetrics::State* operator->() const noexcept { return s_ != nullptr ? s_ : &sink_; }

 private:
  LeaseMetrics::State* s_;
  mutable LeaseMetrics::State sink_;  // fed and never read when the campaign has no metrics
};

}  // namespace lease_detail
}  // namespace forgemeter
