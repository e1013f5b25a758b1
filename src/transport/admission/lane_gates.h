// lane_gates.h — the elected-lane gates of one Transport.
//
// allows() is a single atomic load while no lane is gated; otherwise it finds
// the lane's gate under a shared lock and calls it outside the lock.
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "forgemeter/lane.h"

namespace forgemeter::transport_detail {

class LaneGates {
 public:
  void gate(Lane lane, std::function<bool()> valid);
  void ungate(Lane lane);
  // Whether a request in `lane` may be sent now. A gate that throws refuses.
  bool allows(Lane lane) const noexcept;

 private:
  using Gate = std::shared_ptr<const std::function<bool()>>;
  std::atomic<std::size_t> count_{0};
  mutable core_detail::SharedMutex mu_;
  std::vector<std::pair<Lane, Gate>> gates_ GUARDED_BY(mu_);
};

}  // namespace forgemeter::transport_detail
