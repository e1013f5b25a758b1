#include "testforge/budget.h"

#include <algorithm>

namespace forgemeter::testforge {

Budgets::Budgets(const Clock& clock, BudgetLimits limits) : clock_(clock), limits_(limits) {}

std::chrono::seconds Budgets::window_of(std::string_view resource) const {
  using namespace std::chrono_literals;
  if (resource == "search" || resource == "code_search" || resource == "gitlab") return 60s;
  return limits_.core_window;
}

std::uint64_t Budgets::limit_of(const Key& key) const {
  if (auto it = overrides_.find(key); it != overrides_.end()) return it->second;
  if (key.first == 0) return limits_.anonymous;
  const std::string& r = key.second;
  if (r == "graphql") return limits_.graphql;
  if (r == "search") return limits_.search;
  if (r == "code_search") return limits_.code_search;
  if (r == "gitlab") return limits_.gitlab;
  return limits_.installation;
}

BudgetReading Budgets::settle(const Key& key, std::uint64_t cost, UtcMillis at, bool spend) {
  const std::int64_t length = window_of(key.second).count();
  const std::int64_t seconds = std::chrono::floor<std::chrono::seconds>(at).time_since_epoch().count();
  // floor division: a clock before 1970 still lands in the right window.
  const std::int64_t window = seconds / length - (seconds % length < 0 ? 1 : 0);
  std::lock_guard lock(mu_);
  Bucket& b = buckets_[key];
  if (b.window != window) b = Bucket{window, 0};
  BudgetReading r;
  r.limit = limit_of(key);
  r.reset_epoch = (window + 1) * length;
  // A lowered limit may leave more used than allowed: show it as spent.
  r.exhausted = b.used >= r.limit;
  if (spend && !r.exhausted) b.used += std::min(cost, r.limit - b.used);
  r.used = std::min(b.used, r.limit);
  r.remaining = r.limit - r.used;
  auto [it, fresh] = lowest_.try_emplace(key, r.remaining);
  if (!fresh) it->second = std::min(it->second, r.remaining);
  return r;
}

BudgetReading Budgets::charge(std::uint64_t installation, const std::string& resource, std::uint64_t cost,
                              UtcMillis at) {
  return settle({installation, resource}, cost, at, true);
}

BudgetReading Budgets::charge(std::uint64_t installation, const std::string& resource, std::uint64_t cost) {
  return charge(installation, resource, cost, clock_.now());
}

BudgetReading Budgets::peek(std::uint64_t installation, const std::string& resource, UtcMillis at) {
  return settle({installation, resource}, 0, at, false);
}

void Budgets::set_limit(std::uint64_t installation, std::uint64_t limit) { set_limit(installation, "core", limit); }

void Budgets::set_limit(std::uint64_t installation, const std::string& resource, std::uint64_t limit) {
  std::lock_guard lock(mu_);
  overrides_[{installation, resource}] = limit;
}

std::optional<std::uint64_t> Budgets::lowest_remaining(std::uint64_t installation, const std::string& resource) const {
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
