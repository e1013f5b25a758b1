#include "lease/postgres/proven.h"

#include <algorithm>
#include <utility>

namespace forgemeter::pg {

Proven::Seen Proven::get(std::string_view name) const {
  core_detail::MutexLock lock(mu_);
  auto it = by_name_.find(name);
  return it == by_name_.end() ? Seen{} : it->second;
}

Proven::Seen& Proven::entry(std::string_view name) {
  auto it = by_name_.find(name);
  if (it != by_name_.end()) return it->second;
  if (by_name_.size() >= kMaxNames) by_name_.clear();
  Seen fresh;
  fresh.known = true;
  return by_name_.emplace(std::string(name), std::move(fresh)).first->second;
}

void Proven::saw_holder(std::string_view name, std::string_view holder) {
  core_detail::MutexLock lock(mu_);
  entry(name).holder.assign(holder);
}

void Proven::recorded(std::string_view name, std::int64_t ttl_ms) {
  core_detail::MutexLock lock(mu_);
  Seen& s = entry(name);
  s.recorded_ttl_ms = std::max(s.recorded_ttl_ms, ttl_ms);
}

}  // namespace forgemeter::pg
