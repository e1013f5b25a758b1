// forgemeter/observe.h — watch who holds a lease, as etcd's Observe does.
//
//   forgemeter::observe(store, {.name = "merge-gate-sweeper"}, stop.get_token(),
//                       [](const forgemeter::LeaseState& s) { log_holder(s.holder, s.term); });
//
// observe() reports the lease's state once, then each change: another holder
// or term (an election, a handover), a release (free), a held lease passing
// its expiry unrenewed (held, expiry <= now), and an outage (no_answer with
// the store's error, once; the first answer after it is reported whatever it
// says). A renewal (the same holder and term, a later expiry) is not a change.
// It asks the store (inspect) when the store wakes it (LeaseChanges: a
// release, a change of hands) and at least every spec.poll, so a lost
// wake-up or a store without them costs at most `poll`; two changes between
// two questions are seen as the last one.
// Threads: observe() blocks the caller until `stop`; on_change runs on it.
// Ownership: borrows `store` and spec.clock. Errors: invalid_argument for an
// unusable spec; store failures are reported states, never thrown; an
// exception thrown by on_change propagates.
#pragma once

#include "forgemeter/export.h"

#include <functional>
#include <optional>
#include <stop_token>
#include <string>

#include "forgemeter/clock.h"
#include "forgemeter/lease.h"

namespace forgemeter {

struct FORGEMETER_API ObserveSpec {
  std::string name{};                       // the lease; see lease.h for what a name may be
  Duration poll = std::chrono::seconds(1);  // ask at least this often; each question is bounded by it
  const Clock* clock = nullptr;             // nullptr: system_clock()
};

// Why `spec` is unusable, or nullopt when observe() would accept it.
FORGEMETER_API std::optional<std::string> check_observe_spec(const ObserveSpec& spec);

FORGEMETER_API void observe(LeaseStore& store, const ObserveSpec& spec, std::stop_token stop,
                            const std::function<void(const LeaseState&)>& on_change);

}  // namespace forgemeter
