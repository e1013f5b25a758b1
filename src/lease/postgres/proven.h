// Internal: what one PostgresStore has learnt from its own answers, per lease
// name, so that a call can send a cheaper statement that gives the same answer.
//
// Two facts, both only ever used as hints that a statement's answer then
// confirms or sends the call on to the full statement:
//   - the last holder an answer showed (a candidate polling a lease it last
//     saw held by another, or knows nothing of, sends a plain read first);
//   - a lower bound of the TTL the durable terms record covers (it only ever
//     rises: after a granted acquire or renew with TTL T, record.ttl_ms >= T
//     and record.term >= the live term for good), so a renewal with a TTL
//     within it needs no record check.
//
// Thread-safety: every member may be called concurrently (one mutex).
// Bounded: past kMaxNames names it forgets everything (it is only a cache).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "core/mutex.h"

namespace forgemeter::pg {

class Proven {
 public:
  struct Seen {
    bool known = false;                // some answer about the name was seen
    std::string holder;                // empty: free, quarantined or not known
    std::int64_t recorded_ttl_ms = 0;  // the terms record covers at least this TTL (0: unknown)
  };
  static constexpr std::size_t kMaxNames = 4096;

  Seen get(std::string_view name) const;
  void saw_holder(std::string_view name, std::string_view holder);
  void recorded(std::string_view name, std::int64_t ttl_ms);

 private:
  Seen& entry(std::string_view name) REQUIRES(mu_);

  mutable core_detail::Mutex mu_;
  std::map<std::string, Seen, std::less<>> by_name_ GUARDED_BY(mu_);
};

}  // namespace forgemeter::pg
