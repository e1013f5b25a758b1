// pacing_governor.h — paced lanes spread their spend of a budget to its reset.
//
// A paced lane (PacedLane) of an installation's resource sends at a rate set
// so that the whole fleet — this replica, others like it, anyone spending the
// budget — lands at the lane's keep when the budget resets, though no replica
// knows how many there are: the model is in pacer.h, the reasoning in
// docs/rate-limits.md#pacing. The Transport offers every reading of a watched
// budget (any lane's answer); before a paced hop goes on the wire it asks
// admit(), and waits until the verdict's retry_at to ask again while told so.
// Lanes not paced, and requests charged to no installation, always go.
//
// Thread-safety: every method may be called from any thread at once.
// Errors: the constructor throws std::invalid_argument for an unusable lane
// or tuning; admit() and offer() throw only std::bad_alloc.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "forgemeter/clock.h"
#include "forgemeter/lane.h"
#include "forgemeter/rate_limits.h"
#include "meter/reading.h"
#include "transport/admission/pacer.h"

namespace forgemeter::transport_detail {

using forgemeter::PacedLane;      // forgemeter/rate_limits.h
using forgemeter::UnpacedBudget;  // forgemeter/rate_limits.h

// Why `p` cannot be paced, or nullopt.
std::optional<std::string> check(const PacedLane& p);

class PacingGovernor {
 public:
  // `clock` is borrowed: it must outlive the governor.
  PacingGovernor(std::vector<PacedLane> lanes, const Clock& clock, PacingTuning tuning = {});

  bool empty() const noexcept { return lanes_.empty(); }
  // Whether some PacedLane is on `lane` (one pass over a short list).
  bool paces(Lane lane) const noexcept;

  // Whether a request of `lane` charged to `installation`, expected to spend
  // `resource`, may go now (then it counts as the lane's spend); if not, when
  // to ask again.
  PaceVerdict admit(Lane lane, std::uint64_t installation, std::string_view resource);
  // A reading of `installation`'s `resource` (its full name: "core", …).
  void offer(std::uint64_t installation, std::string_view resource, const meter::Reading& r);
  // An answer that gave no usable reading (no remaining, or no reset) of a
  // budget a paced request of `installation` expected to spend `resource`
  // (resource_of_path). Until a usable reading comes, such a budget is
  // unpaceable (a forge that sends no rate-limit headers, as Gitea): its
  // requests go unpaced rather than one probe per probe_interval for ever.
  void unreadable(std::uint64_t installation, std::string_view resource);
  // The budgets unpaceable now, by installation and resource.
  std::vector<UnpacedBudget> unpaced() const;

  // The share of the fleet's spend `lane` last measured on the budget (1
  // until measured, nullopt when it never asked): for tests and the doc.
  std::optional<double> share(Lane lane, std::uint64_t installation, std::string_view resource) const;

 private:
  struct Budget {
    BudgetWindow window;
    std::vector<std::pair<Lane, Pacer>> pacers;
    bool unreadable = false;  // an answer gave no usable reading
    bool unpaceable() const noexcept { return unreadable && !window.known; }
  };
  using Key = std::pair<std::uint64_t, std::string>;

  const PacedLane* find(Lane lane, std::uint64_t installation, std::string_view resource) const noexcept;
  bool watched(std::uint64_t installation, std::string_view resource) const noexcept;

  std::vector<PacedLane> lanes_;
  const Clock& clock_;
  PacingTuning tuning_;
  mutable core_detail::Mutex mu_;
  std::map<Key, Budget> budgets_ GUARDED_BY(mu_);
};

}  // namespace forgemeter::transport_detail
