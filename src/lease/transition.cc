#include "lease/transition.h"

#include <algorithm>

namespace forgemeter::lease_detail {
namespace {

Step step(LeaseStatus status, const LeaseRecord& current, LeaseRecord next) {
  const bool write = next != current;
  return {status, std::move(next), write};
}

}  // namespace

Step acquire_step(const LeaseRecord& current, std::string_view owner, UtcMillis at, UtcMillis until) {
  if (current.holder == owner)  // the caller's own, even past its expiry: never backward
    return step(LeaseStatus::granted, current, {current.holder, std::max(current.expiry, until), current.term});
  if (current.holder.empty() || current.expiry <= at)  // free, or expired at `at` (inclusive)
    return step(LeaseStatus::granted, current, {std::string(owner), until, current.term + 1});
  return {LeaseStatus::refused, current, false};
}

Step renew_step(const LeaseRecord& current, std::string_view owner, UtcMillis until) {
  if (current.holder.empty() || current.holder != owner) return {LeaseStatus::refused, current, false};
  return step(LeaseStatus::granted, current, {current.holder, std::max(current.expiry, until), current.term});
}

Step release_step(const LeaseRecord& current, std::string_view owner) {
  if (current.holder.empty()) return {LeaseStatus::not_held, current, false};
  if (current.holder != owner) return {LeaseStatus::lost, current, false};
  return step(LeaseStatus::released, current, {{}, UtcMillis{}, current.term});  // the term stays: never reused
}

LeaseStatus inspect_status(const LeaseRecord& current) {
  return current.holder.empty() ? LeaseStatus::not_held : LeaseStatus::granted;
}

LeaseResult answer(LeaseStatus status, const LeaseRecord& record) {
  return {status, record.holder, record.expiry, record.term, {}};
}

LeaseResult failure(LeaseStatus status, std::string error) { return {status, {}, {}, 0, std::move(error)}; }

}  // namespace forgemeter::lease_detail
