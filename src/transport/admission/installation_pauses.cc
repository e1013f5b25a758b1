#include "transport/admission/installation_pauses.h"

#include <algorithm>

namespace forgemeter::transport_detail {

void InstallationPauses::pause(std::uint64_t installation, std::uint64_t origin, const Pause& p, SteadyTime now) {
  const Key key{installation, origin};
  core_detail::MutexLock lock(mu_);
  std::erase_if(pauses_, [&](const auto& e) { return e.second.until <= now; });
  for (auto& [id, existing] : pauses_)
    if (id == key) {
      if (p.until > existing.until) existing = p;
      return;
    }
  pauses_.emplace_back(key, p);
  any_.store(true, std::memory_order_release);
}

std::optional<Pause> InstallationPauses::active(std::uint64_t installation, std::uint64_t origin,
                                                SteadyTime now) const {
  const Key key{installation, origin};
  core_detail::MutexLock lock(mu_);
  for (const auto& [id, p] : pauses_)
    if (id == key && p.until > now) return p;
  return std::nullopt;
}

namespace {

// `t` + `d` (d >= 0), or TimePoint::max() when that is past what it holds:
// the room is measured in whole seconds, so `d` is never converted to a
// finer unit it would overflow.
template <class TimePoint>
TimePoint saturating_add(TimePoint t, std::chrono::seconds d) noexcept {
  const auto room = std::chrono::floor<std::chrono::seconds>(TimePoint::max() - std::max(t, TimePoint{}));
  return d >= room ? TimePoint::max() : t + d;
}

}  // namespace

Pause pause_after(std::chrono::seconds wait, SteadyTime now, UtcMillis wall_now) noexcept {
  wait = std::max(wait, std::chrono::seconds::zero());
  const SteadyTime until = saturating_add(now, wait);
  // Both ends saturate together: a pause is endless on both faces or neither.
  if (until == SteadyTime::max()) return {SteadyTime::max(), UtcMillis::max()};
  const UtcMillis wall_until = saturating_add(wall_now, wait);
  if (wall_until == UtcMillis::max()) return {SteadyTime::max(), UtcMillis::max()};
  return {until, wall_until};
}

}  // namespace forgemeter::transport_detail
