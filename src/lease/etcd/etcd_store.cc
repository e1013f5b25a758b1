#include "forgemeter/etcd_store.h"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>

#include "core/mutex.h"
#include "lease/call_bound.h"
#include "lease/change_board.h"
#include "lease/etcd/codec.h"
#include "lease/etcd/gateway.h"
#include "lease/etcd/watcher.h"
#include "lease/transition.h"

namespace forgemeter {
namespace {

using etcd::Kv;
using lease_detail::answer;
using lease_detail::CallBound;
using lease_detail::LeaseRecord;
using lease_detail::Step;

LeaseResult failed(LeaseStatus status, std::string_view why) {
  return lease_detail::failure(status, "etcd lease store: " + std::string(why));
}

EtcdStoreOptions checked(EtcdStoreOptions o) {
  if (o.endpoints.empty()) throw std::invalid_argument("EtcdStore: no endpoint");
  for (const auto& e : o.endpoints)
    if (e.rfind("http://", 0) != 0 && e.rfind("https://", 0) != 0)
      throw std::invalid_argument("EtcdStore: endpoint '" + e + "' is not an http:// or https:// URL");
  if (o.prefix.empty()) throw std::invalid_argument("EtcdStore: the key prefix is empty");
  if (o.cert_file.empty() != o.key_file.empty())
    throw std::invalid_argument("EtcdStore: a client certificate needs its key, and a key its certificate");
  if (o.max_connections == 0) throw std::invalid_argument("EtcdStore: max_connections must be at least 1");
  if (o.attempt_timeout <= std::chrono::milliseconds::zero())
    throw std::invalid_argument("EtcdStore: attempt_timeout must be positive");
  return o;
}

}  // namespace

struct EtcdStore::Impl {
  explicit Impl(EtcdStoreOptions o)
      : options(checked(std::move(o))), gateway(options), watcher(options, gateway, changes, [this] {
          core_detail::MutexLock lock(mu);
          return latest;
        }) {}

  EtcdStoreOptions options;
  etcd::Gateway gateway;
  // What this store last read or wrote of each name: renewals and the
  // holder's own acquire go straight to the transaction (one round trip); a
  // stale entry costs a failed comparison, whose answer is the key as it is.
  core_detail::Mutex mu;
  std::map<std::string, Kv, std::less<>> seen GUARDED_BY(mu);
  std::int64_t latest GUARDED_BY(mu) = 0;  // the latest revision an answer showed: where a watch starts
  lease_detail::ChangeBoard changes;
  etcd::Watcher watcher;  // last: stopped and joined first

  std::optional<Kv> cached(std::string_view name) {
    core_detail::MutexLock lock(mu);
    auto it = seen.find(name);
    return it == seen.end() ? std::nullopt : std::optional(it->second);
  }
  void remember(std::string_view name, const Kv& kv) {
    core_detail::MutexLock lock(mu);
    latest = std::max(latest, kv.mod_revision);
    seen.insert_or_assign(std::string(name), kv);
  }
  void forget(std::string_view name) {
    core_detail::MutexLock lock(mu);
    if (auto it = seen.find(name); it != seen.end()) seen.erase(it);
  }

  std::optional<Kv> read(const std::string& key, const CallBound& bound, std::string& error) {
    const etcd::Reply r = gateway.post("/v3/kv/range", etcd::range_request(key), bound);
    if (!r.ok) {
      error = r.error;
      return std::nullopt;
    }
    return etcd::parse_range(r.body, error);
  }

  // Takes `step` on (a copy of) the lease's record: a write is one transaction
  // that holds only if nobody wrote the key since it was read; otherwise its
  // answer is the key as it is now, and the step is taken again on that.
  template <typename TakeStep>
  LeaseResult change(std::string_view name, const Deadline& deadline, TakeStep step) {
    CallBound bound(deadline);
    if (bound.passed())
      return failed(LeaseStatus::no_answer, bound.stopped() ? "stopped before the call; nothing sent"
                                                            : "deadline passed before the call; nothing sent");
    const std::string key = options.prefix + std::string(name);
    std::optional<Kv> kv = cached(name);
    bool proven = false;  // kv was read or written by this call
    std::string error;
    for (;;) {
      if (!kv) {
        kv = read(key, bound, error);
        if (!kv) break;
        proven = true;
      }
      LeaseRecord next = kv->record;
      const Step s = step(next);
      if (!s.write) {
        if (proven) {
          remember(name, *kv);
          return answer(s, next);
        }
        kv.reset();  // an answer from memory proves nothing: read it
        continue;
      }
      const etcd::Reply r = gateway.post("/v3/kv/txn", etcd::txn_request(key, kv->mod_revision, next), bound);
      if (!r.ok) {
        error = r.error;
        break;
      }
      auto t = etcd::parse_txn(r.body, next, error);
      if (!t) break;
      if (t->succeeded) {
        remember(name, t->kv);
        return answer(s, next);
      }
      kv = std::move(t->kv);
      proven = true;
    }
    forget(name);  // the write may have landed: its revision is unknown
    return failed(LeaseStatus::no_answer, error);
  }
};

EtcdStore::EtcdStore(EtcdStoreOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
EtcdStore::~EtcdStore() = default;

LeaseResult EtcdStore::acquire(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                               const Deadline& deadline) {
  if (auto why = check_lease_args(name, owner, ttl)) return failed(LeaseStatus::invalid, *why);
  const UtcMillis at = lease_stamp(now), until = at + lease_ttl(ttl);
  return impl_->change(name, deadline, [&](LeaseRecord& r) { return lease_detail::acquire_step(r, owner, at, until); });
}

LeaseResult EtcdStore::renew(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                             const Deadline& deadline) {
  if (auto why = check_lease_args(name, owner, ttl)) return failed(LeaseStatus::invalid, *why);
  const UtcMillis until = lease_stamp(now) + lease_ttl(ttl);
  return impl_->change(name, deadline, [&](LeaseRecord& r) { return lease_detail::renew_step(r, owner, until); });
}

LeaseResult EtcdStore::release(std::string_view name, std::string_view owner, const Deadline& deadline) {
  if (auto why = check_lease_args(name, owner)) return failed(LeaseStatus::invalid, *why);
  return impl_->change(name, deadline, [&](LeaseRecord& r) { return lease_detail::release_step(r, owner); });
}

LeaseResult EtcdStore::resign(std::string_view name, const Deadline& deadline) {
  if (auto why = check_lease_name(name)) return failed(LeaseStatus::invalid, *why);
  return impl_->change(name, deadline, [](LeaseRecord& r) { return lease_detail::resign_step(r); });
}

std::uint64_t EtcdStore::change_mark(std::string_view name) {
  impl_->watcher.start();  // a candidate's first mark opens the watch
  return impl_->changes.mark(name);
}

bool EtcdStore::wait_for_change(std::string_view name, std::uint64_t mark, const Deadline& deadline) {
  return impl_->changes.wait(name, mark, deadline);
}

bool EtcdStore::watching() const { return impl_->watcher.watching(); }

LeaseState EtcdStore::inspect(std::string_view name, const Deadline& deadline) {
  using lease_detail::state_of;
  if (auto why = check_lease_name(name)) return state_of(failed(LeaseStatus::invalid, *why));
  // A read, nothing written; state_of() tells held from free by the record,
  // whatever answered status the step carries.
  return state_of(impl_->change(name, deadline, [](LeaseRecord&) { return Step{LeaseStatus::granted, false}; }));
}

}  // namespace forgemeter
