#include "testforge/budget.h"

#include <algorithm>
#include <chrono>

namespace forgemeter::testforge {

Budgets::Budgets(const Clock& clock, std::uint64_t installation_limit, std::uint64_t anonymous_limit)
    : clock_(clock), installation_limit_(installation_limit), anonymous_limit_(anonymous_limit) {}

std::uint64_t Budgets::limit_of(std::uint64_t installation) const {
  if (auto it = limits_.find(installation); it != limits_.end()) return it->second;
  return installation == 0 ? anonymous_limit_ : installation_limit_;
}

BudgetReading Budgets::charge(std::uint64_t installation, const std::string& resource, int cost) {
  const auto now = clock_.now();
  const std::int64_t hour =
      std::chrono::duration_cast<std::chrono::hours>(now.time_since_epoch()).count();
  std::lock_guard lock(mu_);
  Bucket& b = buckets_[{installation, resource}];
  if (b.hour != hour) b = Bucket{hour, 0};
  BudgetReading r;
  r.limit = limit_of(installation);
  r.reset_epoch = (hour + 1) * 3600;
  if (b.used >= r.limit) {
    r.exhausted = true;
  } else {
    b.used += static_cast<std::uint64_t>(cost);
  }
  r.used = std::min(b.used, r.limit);
  r.remaining = r.limit - r.used;
  auto [it, fresh] = lowest_.try_emplace({installation, resource}, r.remaining);
  if (!fresh) it->second = std::min(it->second, r.remaining);
  return r;
}

void Budgets::set_limit(std::uint64_t installation, std::uint64_t limit) {
  std::lock_guard lock(mu_);
  limits_[installation] = limit;
}

std::optional<std::uint64_t> Budgets::lowest_remaining(std::uint64_t installation,
                                                       const std::string& resource) const {
  std::lock_guard lock(mu_);
  auto it = lowest_.find({installation, resource});
  if (it == lowest_.end()) return std::nullopt;
  return it->second;
}

void Budgets::reset_lowest() {
  std::lock_guard lock(mu_);
  lowest_.clear();
}

}  // namespace forgemeter::testforge
