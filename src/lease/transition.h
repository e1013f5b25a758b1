// Internal: the lease contract's rules (forgemeter/lease.h) as pure functions
// of a lease's record: what acquire, renew and release answer, the record
// they leave, and the state inspect reads. The memory store applies them under its mutex; the etcd store
// applies them to the record it read and writes the result in one
// compare-and-swap transaction. One place for the rules, so stores cannot
// drift apart.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "forgemeter/lease.h"

namespace forgemeter::lease_detail {

struct LeaseRecord {
  std::string holder;  // empty: free
  UtcMillis expiry{};  // the epoch when free
  std::uint64_t term = 0;
  std::uint64_t resign_term = 0;  // the term whose holder was asked to step down (0: none asked)

  bool operator==(const LeaseRecord&) const = default;
};

struct Step {
  LeaseStatus status = LeaseStatus::refused;
  bool write = false;   // the record changed: the store must write it
  std::string error{};  // a refusal of the store's own (a term that cannot increase): why
  bool resign = false;  // a granted renewal of a term whose holder was asked to step down
};

// Why a change of hands is refused at `term`, the largest a store keeps
// (2^64 − 1; PostgreSQL's bigint 2^63 − 1): the next term cannot be larger.
std::string term_exhausted_error(std::uint64_t term);

// Each takes the call's step on `record` in place: afterwards `record` is the
// lease as the call leaves it. `at` and `until` are already the contract's
// millisecond stamps (lease_stamp(now), lease_stamp(now) + lease_ttl(ttl)).
Step acquire_step(LeaseRecord& record, std::string_view owner, UtcMillis at, UtcMillis until);
Step renew_step(LeaseRecord& record, std::string_view owner, UtcMillis until);
Step release_step(LeaseRecord& record, std::string_view owner);
// An operator's request that the holder step down: kept for the current term
// (granted; written unless already asked), or not_held on a free lease.
Step resign_step(LeaseRecord& record);
// The holder was asked to step down in the record's current term.
bool resign_asked(const LeaseRecord& record);
// inspect's answer: held when the record has a holder (even past its
// expiry), else free. From a call's result: the same when it was answered;
// else its no_answer or invalid, with its error.
LeaseState state_of(const LeaseRecord& record);
LeaseState state_of(LeaseResult result);

LeaseResult answer(LeaseStatus status, const LeaseRecord& record);
LeaseResult answer(Step step, const LeaseRecord& record);  // with the step's error
LeaseResult failure(LeaseStatus status, std::string error);

}  // namespace forgemeter::lease_detail
