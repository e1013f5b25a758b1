// lane_reserves.h — lanes held back from the last of a budget (LaneReserve in
// forgemeter/transport.h).
//
// The Transport offers every reading of a watched installation's budget here
// (its latest by the time it was seen wins); a request of a reserved lane
// asks refusal() before it is sent. A reading without a usable reset holds
// for one minute after it was seen (GitLab's windows are a minute long).
//
// Thread-safety: every method may be called from any thread at once. Errors:
// the constructor throws std::invalid_argument for an unusable reserve.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "forgemeter/rate_limits.h"
#include "meter/reading.h"

namespace forgemeter::transport_detail {

class LaneReserves {
 public:
  explicit LaneReserves(std::vector<LaneReserve> reserves);

  bool empty() const noexcept { return reserves_.empty(); }
  // Whether some reserve is on `lane` (one pass over a short list).
  bool reserves(Lane lane) const noexcept;
  // A reading of `installation`'s `resource` (its full name: "core", "search", …).
  void offer(std::uint64_t installation, std::string_view resource, const meter::Reading& r);
  // Why a request of `lane` charged to `installation` and expected to spend
  // `resource` must not be sent at wall time `now`; "" when it may.
  std::string refusal(Lane lane, std::uint64_t installation, std::string_view resource, UtcMillis now) const;

 private:
  bool watched(std::uint64_t installation) const noexcept;

  std::vector<LaneReserve> reserves_;
  mutable core_detail::Mutex mu_;
  std::map<std::pair<std::uint64_t, std::string>, meter::Reading> latest_ GUARDED_BY(mu_);
};

}  // namespace forgemeter::transport_detail
