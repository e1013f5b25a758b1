// test/lease/conformance.h — the lease store conformance suite, for any store.
//
// Every LeaseStore must pass every row (forgemeter/lease.h states the
// contract). To run the suite against a store, give it a factory and register
// the rows in ONE test source file (also compile test/lease/conformance.cc):
//
//   struct PostgresFactory final : forgemeter::conformance::StoreFactory {
//     std::shared_ptr<forgemeter::LeaseStore> fresh() override { ... new table ... }
//     std::shared_ptr<forgemeter::LeaseStore> peer(const std::shared_ptr<forgemeter::LeaseStore>& s) override;
//   };
//   FORGEMETER_LEASE_CONFORMANCE("postgres", PostgresFactory)
//
// This registers one doctest test case per row, named
// `lease conformance [<label>]: <row>`; each constructs its own Factory
// (default constructor) and calls fresh() once. The rows use the caller's
// instants only (a fixed UTC date, never the time of day) and real-clock
// deadlines of 10 s per call, so a slow store passes and a hanging one fails.
//
// Thread-safety: the race rows call peer() on the test thread, then use each
// peer from its own thread; fresh() and peer() are called on the test thread.
#pragma once

#include <doctest/doctest.h>

#include <memory>

#include "forgemeter/lease.h"

namespace forgemeter::conformance {

struct StoreFactory {
  virtual ~StoreFactory() = default;
  // A fresh, empty store namespace (Postgres: a fresh table).
  virtual std::shared_ptr<LeaseStore> fresh() = 0;
  // Another handle onto the same data as `s` (memory: `s` itself; Postgres: a
  // new store object with its own connection).
  virtual std::shared_ptr<LeaseStore> peer(const std::shared_ptr<LeaseStore>& s) = 0;
};

// X(label, Factory, function, title) for every row.
#define FORGEMETER_LEASE_CONFORMANCE_ROWS(X, label, Factory)                                                         \
  X(label, Factory, free_lease_is_taken, "a free lease is taken")                                                    \
  X(label, Factory, held_lease_refuses_others_to_its_last_ms,                                                        \
    "a held lease refuses another owner up to its last millisecond")                                                 \
  X(label, Factory, holder_reacquire_extends, "the holder's re-acquire extends it, same term")                       \
  X(label, Factory, same_instant_renewal_is_not_a_loss, "a renewal at the stored instant is a success")              \
  X(label, Factory, takeover_at_expiry_inclusive, "takeover at expiry (inclusive), old holder refused")              \
  X(label, Factory, release_frees_at_once, "release frees the lease at once")                                        \
  X(label, Factory, overrun_holder_release_is_lost, "release by an overrun holder is lost, successor keeps it")      \
  X(label, Factory, renew_extends, "renew extends the holder's lease")                                               \
  X(label, Factory, renew_never_takes, "renew never takes a free or another's lease")                                \
  X(label, Factory, renew_after_release_leaves_it_free, "renew after release leaves the lease free")                 \
  X(label, Factory, expired_unowned_lease_is_renewable, "an expired lease nobody took is renewable by its owner")    \
  X(label, Factory, expiry_never_moves_backward, "the expiry never moves backward under out-of-order stamps")        \
  X(label, Factory, passed_deadline_changes_nothing, "a call whose deadline has passed fails and changes nothing")   \
  X(label, Factory, stopped_call_changes_nothing,                                                                    \
    "a stopped call answers no_answer at once; a stop ends calls in flight")                                         \
  X(label, Factory, release_of_free_lease_is_noop, "releasing a free lease is a no-op")                              \
  X(label, Factory, leases_are_independent_by_name, "leases are independent by name")                                \
  X(label, Factory, race_for_new_lease_elects_one, "8 candidates racing for a new lease elect exactly one")          \
  X(label, Factory, race_for_expired_lease_elects_one, "8 candidates racing for an expired lease elect exactly one") \
  X(label, Factory, sub_millisecond_is_its_millisecond,                                                              \
    "sub-millisecond instants and TTLs behave as their millisecond")                                                 \
  X(label, Factory, terms_fence_changes_of_hands, "terms increase on every change of hands, never reused")           \
  X(label, Factory, invalid_arguments_write_nothing,                                                                 \
    "blank, long, NUL and non-UTF-8 arguments are invalid, nothing written")                                         \
  X(label, Factory, any_utf8_text_is_kept_exactly, "quotes, backslashes and any UTF-8 are kept byte for byte")       \
  X(label, Factory, release_wakes_waiting_candidates,                                                                \
    "a release wakes a candidate waiting on that name at once, a renewal does not; suppressed, within retry")        \
  X(label, Factory, clean_handovers_meet_their_bounds,                                                               \
    "20 clean handovers at TTL 9 s: median <= 100 ms, worst <= 250 ms; suppressed <= retry + 200 ms")                \
  X(label, Factory, resign_request_reaches_the_term,                                                                 \
    "a resign request reaches the holder's renewals in its term only, on that name only, and wakes a waiter")        \
  X(label, Factory, resign_moves_leadership,                                                                         \
    "a resign request moves leadership to the woken candidate (median <= 1 s), never two terms at once")             \
  X(label, Factory, observer_sees_each_change_in_order,                                                              \
    "a watcher (observe) sees acquire, release, handover and expiry in order, and no renewal")

#define FORGEMETER_LEASE_CONFORMANCE_DECLARE_(label, Factory, fn, title) void fn(StoreFactory& factory);
FORGEMETER_LEASE_CONFORMANCE_ROWS(FORGEMETER_LEASE_CONFORMANCE_DECLARE_, "", void)
#undef FORGEMETER_LEASE_CONFORMANCE_DECLARE_

#define FORGEMETER_LEASE_CONFORMANCE_CASE_(label, Factory, fn, title) \
  TEST_CASE("lease conformance [" label "]: " title) {                \
    Factory conformance_factory_;                                     \
    ::forgemeter::conformance::fn(conformance_factory_);              \
  }

// Registers every row as a doctest test case for `Factory` under `label`.
#define FORGEMETER_LEASE_CONFORMANCE(label, Factory) \
  FORGEMETER_LEASE_CONFORMANCE_ROWS(FORGEMETER_LEASE_CONFORMANCE_CASE_, label, Factory)

}  // namespace forgemeter::conformance
