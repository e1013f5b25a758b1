#include "lease/transition.h"

#include <limits>

namespace forgemeter::lease_detail {
namespace {

// Never backward: the later of the stored and the new expiry.
Step extend(LeaseRecord& r, UtcMillis until) {
  if (until <= r.expiry) return {LeaseStatus::granted, false};
  r.expiry = until;
  return {LeaseStatus::granted, true};
}

}  // namespace

std::string term_exhausted_error(std::uint64_t term) {
  return "term " + std::to_string(term) +
         " cannot increase: the lease cannot change hands without reusing a term (a record written by hand?); "
         "campaign under another lease name";
}

Step acquire_step(LeaseRecord& record, std::string_view owner, UtcMillis at, UtcMillis until) {
  if (record.holder == owner) return extend(record, until);  // the caller's own, even past its expiry
  if (!record.holder.empty() && record.expiry > at) return {LeaseStatus::refused, false};
  if (record.term == std::numeric_limits<std::uint64_t>::max())  // never wrap to 0: a term is never reused
    return {LeaseStatus::refused, false, term_exhausted_error(record.term)};
  record.holder.assign(owner);  // free, or expired at `at` (inclusive): changes hands
  record.expiry = until;
  ++record.term;
  return {LeaseStatus::granted, true};
}

Step renew_step(LeaseRecord& record, std::string_view owner, UtcMillis until) {
  if (record.holder.empty() || record.holder != owner) return {LeaseStatus::refused, false};
  Step s = extend(record, until);
  s.resign = resign_asked(record);
  return s;
}

Step resign_step(LeaseRecord& record) {
  if (record.holder.empty()) return {LeaseStatus::not_held, false};
  if (resign_asked(record)) return {LeaseStatus::granted, false};
  record.resign_term = record.term;
  return {LeaseStatus::granted, true};
}

bool resign_asked(const LeaseRecord& record) { return record.term != 0 && record.resign_term == record.term; }

Step release_step(LeaseRecord& record, std::string_view owner) {
  if (record.holder.empty()) return {LeaseStatus::not_held, false};
  if (record.holder != owner) return {LeaseStatus::lost, false};
  record.holder.clear();
  record.expiry = UtcMillis{};  // the term stays: never reused
  return {LeaseStatus::released, true};
}

LeaseState state_of(const LeaseRecord& record) {
  using S = LeaseState::Status;
  return {record.holder.empty() ? S::free : S::held, record.holder, record.expiry, record.term, {}};
}

LeaseState state_of(LeaseResult result) {
  using S = LeaseState::Status;
  if (result.status == LeaseStatus::no_answer || result.status == LeaseStatus::invalid)
    return {result.status == LeaseStatus::invalid ? S::invalid : S::no_answer, {}, {}, 0, std::move(result.error)};
  return state_of(LeaseRecord{std::move(result.holder), result.expiry, result.term, 0});
}

LeaseResult answer(LeaseStatus status, const LeaseRecord& record) {
  return {status, record.holder, record.expiry, record.term, {}};
}

LeaseResult answer(Step step, const LeaseRecord& record) {
  LeaseResult r = answer(step.status, record);
  r.error = std::move(step.error);
  r.resign_requested = step.resign;
  return r;
}

LeaseResult failure(LeaseStatus status, std::string error) { return {status, {}, {}, 0, std::move(error)}; }

}  // namespace forgemeter::lease_detail
