#include "forgemeter/memory_store.h"

#include <map>

#include "core/mutex.h"
#include "lease/change_board.h"
#include "lease/transition.h"

namespace forgemeter {
namespace {

using lease_detail::answer;
using lease_detail::failure;
using lease_detail::LeaseRecord;
using lease_detail::state_of;
using lease_detail::Step;

// The call never waits, so a stop can only have come before it.
LeaseResult too_late(const Deadline& d) {
  return failure(LeaseStatus::no_answer, d.stopped() ? "stopped: the caller had stopped before the call was made"
                                                     : "the call's deadline had passed before it was made");
}

}  // namespace

struct MemoryStore::Impl {
  mutable core_detail::Mutex mu;
  std::map<std::string, LeaseRecord, std::less<>> leases GUARDED_BY(mu);
  lease_detail::ChangeBoard changes;  // a release or a change of hands: the holder changed

  // The record for `name`, or a free one with term 0 (not inserted).
  const LeaseRecord& find(std::string_view name) const REQUIRES(mu) {
    static const LeaseRecord kFree;
    auto it = leases.find(name);
    return it == leases.end() ? kFree : it->second;
  }

  // Takes `step` on the record of `name` in place, under the mutex (a name
  // never taken gets a record only when the step writes one).
  // Waiting candidates (and a holder asked to step down) are woken after the
  // mutex is let go (a change of hands always raises the term).
  template <typename TakeStep>
  LeaseResult apply(std::string_view name, TakeStep step) {
    LeaseResult r;
    bool moved = false;
    {
      core_detail::MutexLock lock(mu);
      auto it = leases.find(name);
      if (it != leases.end()) {
        LeaseRecord& rec = it->second;
        const std::uint64_t term = rec.term, asked = rec.resign_term;
        const bool held = !rec.holder.empty();
        const Step s = step(rec);
        moved = rec.term != term || (held && rec.holder.empty())  // taken, or released
                || rec.resign_term != asked;                      // or its holder asked to step down
        r = answer(s, it->second);
      } else {
        LeaseRecord fresh;
        const Step s = step(fresh);
        if (s.write) leases.emplace(std::string(name), fresh);
        moved = s.write;
        r = answer(s, fresh);
      }
    }
    if (moved) changes.changed(name);
    return r;
  }
};

MemoryStore::MemoryStore() : impl_(std::make_unique<Impl>()) {}
MemoryStore::~MemoryStore() = default;

LeaseResult MemoryStore::acquire(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                                 const Deadline& deadline) {
  if (auto why = check_lease_args(name, owner, ttl)) return failure(LeaseStatus::invalid, std::move(*why));
  if (deadline.over()) return too_late(deadline);
  const UtcMillis at = lease_stamp(now), until = at + lease_ttl(ttl);
  return impl_->apply(name, [&](LeaseRecord& r) { return lease_detail::acquire_step(r, owner, at, until); });
}

LeaseResult MemoryStore::renew(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                               const Deadline& deadline) {
  if (auto why = check_lease_args(name, owner, ttl)) return failure(LeaseStatus::invalid, std::move(*why));
  if (deadline.over()) return too_late(deadline);
  const UtcMillis until = lease_stamp(now) + lease_ttl(ttl);
  return impl_->apply(name, [&](LeaseRecord& r) { return lease_detail::renew_step(r, owner, until); });
}

LeaseResult MemoryStore::release(std::string_view name, std::string_view owner, const Deadline& deadline) {
  if (auto why = check_lease_args(name, owner)) return failure(LeaseStatus::invalid, std::move(*why));
  if (deadline.over()) return too_late(deadline);
  return impl_->apply(name, [&](LeaseRecord& r) { return lease_detail::release_step(r, owner); });
}

LeaseState MemoryStore::inspect(std::string_view name, const Deadline& deadline) {
  if (auto why = check_lease_name(name)) return state_of(failure(LeaseStatus::invalid, std::move(*why)));
  if (deadline.over()) return state_of(too_late(deadline));
  core_detail::MutexLock lock(impl_->mu);
  return state_of(impl_->find(name));
}

LeaseResult MemoryStore::resign(std::string_view name, const Deadline& deadline) {
  if (auto why = check_lease_name(name)) return failure(LeaseStatus::invalid, std::move(*why));
  if (deadline.over()) return too_late(deadline);
  return impl_->apply(name, [](LeaseRecord& r) { return lease_detail::resign_step(r); });
}

std::uint64_t MemoryStore::change_mark(std::string_view name) { return impl_->changes.mark(name); }

bool MemoryStore::wait_for_change(std::string_view name, std::uint64_t mark, const Deadline& deadline) {
  return impl_->changes.wait(name, mark, deadline);
}

std::size_t MemoryStore::size() const {
  core_detail::MutexLock lock(impl_->mu);
  return impl_->leases.size();
}

}  // namespace forgemeter
