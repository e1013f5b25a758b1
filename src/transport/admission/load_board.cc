#include "transport/admission/load_board.h"

#include <unordered_map>

namespace forgemeter::transport_detail {

LoadCounts& LoadBoard::counts(std::uint64_t installation) {
  if (installation == 0) {
    if (!none_seen_.load(std::memory_order_relaxed)) none_seen_.store(true, std::memory_order_relaxed);
    return none_;
  }
  core_detail::MutexLock lock(mu_);
  return named(installation);
}

LoadCounts& LoadBoard::named(std::uint64_t installation) const {
  if (const auto it = named_.find(installation); it != named_.end()) return it->second;
  if (named_.size() >= max_) {
    other_seen_ = true;
    return other_;
  }
  return named_.try_emplace(installation).first->second;
}

namespace {

InstallationLoad read(const LoadCounts& c, std::uint64_t installation, bool other) {
  InstallationLoad l{.installation = installation, .other = other};
  l.in_flight = c.in_flight.load(std::memory_order_relaxed);
  for (std::size_t i = 0; i < kWaitCauses; ++i) l.waiting[i] = c.waiting[i].load(std::memory_order_relaxed);
  return l;
}

}  // namespace

TransportFigures LoadBoard::figures(const std::vector<std::pair<std::uint64_t, unsigned>>& admitted) const {
  TransportFigures f;
  core_detail::MutexLock lock(mu_);
  std::unordered_map<const LoadCounts*, std::uint64_t> extra;  // in flight counted elsewhere
  for (const auto& [installation, n] : admitted)
    if (installation != 0) extra[&named(installation)] += n;  // seen now, if not before
  auto add_extra = [&](InstallationLoad l, const LoadCounts& c) {
    if (const auto it = extra.find(&c); it != extra.end()) l.in_flight += it->second;
    return l;
  };
  f.installations.reserve(named_.size() + 2);
  if (none_seen_.load(std::memory_order_relaxed)) f.installations.push_back(read(none_, 0, false));
  for (const auto& [installation, c] : named_) f.installations.push_back(add_extra(read(c, installation, false), c));
  if (other_seen_) f.installations.push_back(add_extra(read(other_, 0, true), other_));
  return f;
}

}  // namespace forgemeter::transport_detail
