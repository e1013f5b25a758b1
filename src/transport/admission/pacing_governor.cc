#include "transport/admission/pacing_governor.h"

#include <algorithm>
#include <stdexcept>

#include "core/ascii.h"

namespace forgemeter::transport_detail {

std::optional<std::string> check(const PacedLane& p) {
  if (p.lane.is_other()) return "lane must name a lane (not other)";
  if (!(p.keep_fraction >= 0 && p.keep_fraction <= 1)) return "keep_fraction must be in [0, 1]";
  if (p.resource.empty() || p.resource.size() > meter::ResourceName::kMax)
    return "resource must be a name of 1 to 64 bytes";
  return std::nullopt;
}

PacingGovernor::PacingGovernor(std::vector<PacedLane> lanes, const Clock& clock, PacingTuning tuning)
    : lanes_(std::move(lanes)), clock_(clock), tuning_(tuning) {
  if (auto why = check(tuning_)) throw std::invalid_argument("Transport: rate_limits.pacing.tuning." + *why);
  for (std::size_t i = 0; i < lanes_.size(); ++i) {
    if (auto why = check(lanes_[i]))
      throw std::invalid_argument("Transport: rate_limits.pacing.lanes[" + std::to_string(i) + "]." + *why);
    lanes_[i].resource = core_detail::ascii_lowercase(lanes_[i].resource);
  }
}

bool PacingGovernor::paces(Lane lane) const noexcept {
  return std::any_of(lanes_.begin(), lanes_.end(), [&](const PacedLane& p) { return p.lane == lane; });
}

const PacedLane* PacingGovernor::find(Lane lane, std::uint64_t installation, std::string_view resource) const noexcept {
  for (const PacedLane& p : lanes_)
    if (p.lane == lane && p.resource == resource && (p.installation == 0 || p.installation == installation)) return &p;
  return nullptr;
}

bool PacingGovernor::watched(std::uint64_t installation, std::string_view resource) const noexcept {
  return std::any_of(lanes_.begin(), lanes_.end(), [&](const PacedLane& p) {
    return p.resource == resource && (p.installation == 0 || p.installation == installation);
  });
}

PaceVerdict PacingGovernor::admit(Lane lane, std::uint64_t installation, std::string_view resource) {
  if (installation == 0) return {};
  const PacedLane* spec = find(lane, installation, resource);
  if (spec == nullptr) return {};
  const UtcMillis wall = clock_.now();
  const SteadyTime steady = clock_.steady_now();
  core_detail::MutexLock lock(mu_);
  Budget& b = budgets_[{installation, std::string(resource)}];
  if (b.unpaceable()) return {};  // nothing to pace by: not held
  auto it = std::find_if(b.pacers.begin(), b.pacers.end(), [&](const auto& lp) { return lp.first == lane; });
  if (it == b.pacers.end())
    it = b.pacers.insert(b.pacers.end(), {lane, Pacer(spec->keep, spec->keep_fraction, tuning_)});
  return it->second.admit(b.window, wall, steady);
}

void PacingGovernor::offer(std::uint64_t installation, std::string_view resource, const meter::Reading& r) {
  if (installation == 0 || !watched(installation, resource)) return;
  core_detail::MutexLock lock(mu_);
  Budget& b = budgets_[{installation, std::string(resource)}];
  const BudgetWindow::Offered o = b.window.offer(r);
  if (o == BudgetWindow::Offered::unusable) b.unreadable = true;
  for (auto& [lane, pacer] : b.pacers) pacer.observe(b.window, o, r.seen);
}

void PacingGovernor::unreadable(std::uint64_t installation, std::string_view resource) {
  if (installation == 0 || !watched(installation, resource)) return;
  core_detail::MutexLock lock(mu_);
  budgets_[{installation, std::string(resource)}].unreadable = true;
}

std::vector<UnpacedBudget> PacingGovernor::unpaced() const {
  std::vector<UnpacedBudget> out;
  core_detail::MutexLock lock(mu_);
  for (const auto& [key, b] : budgets_)
    if (b.unpaceable()) out.push_back({.installation = key.first, .resource = key.second});
  return out;
}

std::optional<double> PacingGovernor::share(Lane lane, std::uint64_t installation, std::string_view resource) const {
  core_detail::MutexLock lock(mu_);
  auto b = budgets_.find({installation, std::string(resource)});
  if (b == budgets_.end()) return std::nullopt;
  for (const auto& [l, pacer] : b->second.pacers)
    if (l == lane) return pacer.share();
  return std::nullopt;
}

}  // namespace forgemeter::transport_detail
