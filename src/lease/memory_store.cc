#include "forgemeter/memory_store.h"

#include <map>
#include <mutex>

namespace forgemeter {
namespace {

struct Entry {
  std::string holder;  // empty: free
  UtcMillis expiry{};
  std::uint64_t term = 0;
};

LeaseResult answer(LeaseStatus status, const Entry& e) { return {status, e.holder, e.expiry, e.term, {}}; }
LeaseResult failed(LeaseStatus status, std::string error) { return {status, {}, {}, 0, std::move(error)}; }
// The call never waits, so a stop can only have come before it.
LeaseResult too_late(const Deadline& d) {
  return failed(LeaseStatus::no_answer, d.stopped() ? "stopped: the caller had stopped before the call was made"
                                                    : "the call's deadline had passed before it was made");
}

}  // namespace

struct MemoryStore::Impl {
  mutable std::mutex mu;
  std::map<std::string, Entry, std::less<>> leases;

  // The entry for `name`, or a free one with term 0 (not inserted).
  const Entry& find(std::string_view name) const {
    static const Entry kFree;
    auto it = leases.find(name);
    return it == leases.end() ? kFree : it->second;
  }
};

MemoryStore::MemoryStore() : impl_(std::make_unique<Impl>()) {}
MemoryStore::~MemoryStore() = default;

LeaseResult MemoryStore::acquire(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                                 const Deadline& deadline) {
  if (auto e = lease_args_error(name, owner, ttl); !e.empty()) return failed(LeaseStatus::invalid, std::move(e));
  if (deadline.over()) return too_late(deadline);
  const UtcMillis at = lease_stamp(now), until = at + lease_ttl(ttl);
  std::lock_guard lock(impl_->mu);
  auto it = impl_->leases.find(name);
  if (it == impl_->leases.end()) it = impl_->leases.emplace(std::string(name), Entry{}).first;
  Entry& e = it->second;
  if (e.holder == owner) {
    e.expiry = std::max(e.expiry, until);
  } else if (e.holder.empty() || e.expiry <= at) {
    e = Entry{std::string(owner), until, e.term + 1};
  } else {
    return answer(LeaseStatus::refused, e);
  }
  return answer(LeaseStatus::granted, e);
}

LeaseResult MemoryStore::renew(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                               const Deadline& deadline) {
  if (auto e = lease_args_error(name, owner, ttl); !e.empty()) return failed(LeaseStatus::invalid, std::move(e));
  if (deadline.over()) return too_late(deadline);
  const UtcMillis until = lease_stamp(now) + lease_ttl(ttl);
  std::lock_guard lock(impl_->mu);
  auto it = impl_->leases.find(name);
  if (it == impl_->leases.end() || it->second.holder != owner) return answer(LeaseStatus::refused, impl_->find(name));
  it->second.expiry = std::max(it->second.expiry, until);
  return answer(LeaseStatus::granted, it->second);
}

LeaseResult MemoryStore::release(std::string_view name, std::string_view owner, const Deadline& deadline) {
  if (auto e = lease_args_error(name, owner); !e.empty()) return failed(LeaseStatus::invalid, std::move(e));
  if (deadline.over()) return too_late(deadline);
  std::lock_guard lock(impl_->mu);
  auto it = impl_->leases.find(name);
  if (it == impl_->leases.end() || it->second.holder.empty()) return answer(LeaseStatus::not_held, impl_->find(name));
  Entry& e = it->second;
  if (e.holder != owner) return answer(LeaseStatus::lost, e);
  e.holder.clear();
  e.expiry = UtcMillis{};
  return answer(LeaseStatus::released, e);
}

LeaseResult MemoryStore::inspect(std::string_view name, const Deadline& deadline) {
  if (auto e = lease_name_error(name); !e.empty()) return failed(LeaseStatus::invalid, std::move(e));
  if (deadline.over()) return too_late(deadline);
  std::lock_guard lock(impl_->mu);
  const Entry& e = impl_->find(name);
  return answer(e.holder.empty() ? LeaseStatus::not_held : LeaseStatus::granted, e);
}

std::size_t MemoryStore::size() const {
  std::lock_guard lock(impl_->mu);
  return impl_->leases.size();
}

}  // namespace forgemeter
