#include "transport/admission/lane_reserves.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/ascii.h"
#include "meter/civil.h"

namespace forgemeter::transport_detail {

namespace {

// A reading without a usable reset holds this long after it was seen.
constexpr auto kHoldWithoutReset = std::chrono::minutes(1);

std::string time_text(UtcMillis t) {
  std::string out;
  meter::append_time_of_day(out, meter::time_of_day(t));
  return out;
}

// The reserve's size against a reading: the larger of its two forms.
std::uint64_t reserve_of(const LaneReserve& r, const meter::Reading& reading) {
  std::uint64_t n = r.keep;
  if (r.keep_fraction > 0 && reading.limit)
    n = std::max(n, static_cast<std::uint64_t>(std::ceil(r.keep_fraction * static_cast<double>(*reading.limit))));
  return n;
}

}  // namespace

LaneReserves::LaneReserves(std::vector<LaneReserve> reserves) : reserves_(std::move(reserves)) {
  for (std::size_t i = 0; i < reserves_.size(); ++i) {
    LaneReserve& r = reserves_[i];
    const std::string field = "Transport: rate_limits.reserves[" + std::to_string(i) + "].";
    if (!(r.keep_fraction >= 0 && r.keep_fraction <= 1))
      throw std::invalid_argument(field + "keep_fraction must be in [0, 1]");
    if (r.keep == 0 && r.keep_fraction == 0)
      throw std::invalid_argument(field + "keep or keep_fraction must be above 0");
    if (r.resource.empty() || r.resource.size() > meter::ResourceName::kMax)
      throw std::invalid_argument(field + "resource must be a name of 1 to 64 bytes");
    r.resource = core_detail::ascii_lowercase(r.resource);
  }
}

bool LaneReserves::reserves(Lane lane) const noexcept {
  return std::any_of(reserves_.begin(), reserves_.end(), [&](const LaneReserve& r) { return r.lane == lane; });
}

bool LaneReserves::watched(std::uint64_t installation) const noexcept {
  return std::any_of(reserves_.begin(), reserves_.end(),
                     [&](const LaneReserve& r) { return r.installation == 0 || r.installation == installation; });
}

void LaneReserves::offer(std::uint64_t installation, std::string_view resource, const meter::Reading& r) {
  if (installation == 0 || !watched(installation)) return;
  core_detail::MutexLock lock(mu_);
  auto [it, fresh] = latest_.try_emplace({installation, std::string(resource)}, r);
  if (fresh) return;
  meter::Reading& kept = it->second;
  if (r.seen > kept.seen || (r.seen == kept.seen && r.remaining < kept.remaining)) kept = r;
}

std::string LaneReserves::refusal(Lane lane, std::uint64_t installation, std::string_view resource,
                                  UtcMillis now) const {
  if (installation == 0) return {};
  for (const LaneReserve& r : reserves_) {
    if (r.lane != lane || r.resource != resource || (r.installation != 0 && r.installation != installation)) continue;
    meter::Reading reading;
    {
      core_detail::MutexLock lock(mu_);
      auto it = latest_.find({installation, std::string(resource)});
      if (it == latest_.end()) continue;
      reading = it->second;
    }
    const UtcMillis until = reading.reset ? UtcMillis(*reading.reset) : reading.seen + kHoldWithoutReset;
    const std::uint64_t reserve = reserve_of(r, reading);
    if (now >= until || reading.remaining > reserve) continue;
    std::string text = "lane " + std::string(lane.name()) + " holds back: installation " +
                       std::to_string(installation) + "'s " + std::string(resource) + " budget read " +
                       std::to_string(reading.remaining);
    if (reading.limit) text += " of " + std::to_string(*reading.limit);
    text += " at " + time_text(reading.seen) + ", within the lane's reserve of " + std::to_string(reserve) +
            (reading.reset ? ", until it resets at " : ", until ") + time_text(until) + "; request not sent";
    return text;
  }
  return {};
}

}  // namespace forgemeter::transport_detail
