// Internal: the changes of lease names a store has heard of, and the
// candidates waiting for them — the one implementation of LeaseChanges
// (forgemeter/lease.h) that MemoryStore, PostgresStore and EtcdStore share.
//
// A store calls changed(name) when it hears of a release or a change of hands
// (MemoryStore: its own write; PostgreSQL: a NOTIFY; etcd: a watch event),
// and changed_all() when it may have missed some (its listener reconnected):
// every waiter wakes then, and polls once. A waiter waits on its deadline's
// clock (a ManualClock parks it as any wait), woken through a stop_source.
//
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/mutex.h"
#include "forgemeter/clock.h"

namespace forgemeter::lease_detail {

class ChangeBoard {
 public:
  std::uint64_t mark(std::string_view name) const;
  void changed(std::string_view name);
  void changed_all();
  // true: a change of `name` past `mark` was heard; false: the deadline
  // passed or its stop was requested first.
  bool wait(std::string_view name, std::uint64_t mark, const Deadline& deadline);

 private:
  struct Waiter {
    std::string_view name;
    std::stop_source* wake;
  };
  std::uint64_t mark_locked(std::string_view name) const REQUIRES(mu_);

  mutable core_detail::Mutex mu_;
  std::map<std::string, std::uint64_t, std::less<>> counts_ GUARDED_BY(mu_);
  std::uint64_t everyone_ GUARDED_BY(mu_) = 0;  // changed_all(): every name's mark moves
  std::vector<Waiter*> waiters_ GUARDED_BY(mu_);
};

}  // namespace forgemeter::lease_detail
