// PostgresStore answers a call the same whatever the store has seen before.
// A store sends a cheaper statement when its own earlier answers allow (a
// plain read for a candidate polling a lease it saw held by another, renew's
// UPDATE alone for a holder whose TTL the terms record covers, release's
// UPDATE alone for a holder); these tests make each of those hints wrong —
// another replica's store changes the lease in between — and check that the
// answer is the one the full statement gives.
#include <doctest/doctest.h>

#include <chrono>

#include "forgemeter/postgres_store.h"
#include "store_calls.h"
#include "support/pg_env.h"

using namespace std::chrono_literals;
using namespace forgemeter;
using namespace fmtest;

namespace {

struct TwoReplicas {
  explicit TwoReplicas(const std::string& conninfo)
      : table(conninfo),
        a({.conninfo = conninfo, .table = table.name()}),
        b({.conninfo = conninfo, .table = table.name()}) {}
  fmtest::ScratchTable table;
  PostgresStore a;  // replica A's store: its own connections and its own hints
  PostgresStore b;
};

}  // namespace

FM_SUITE_PG_TEST("postgres hints: a candidate that saw the lease held takes it once it is released or expired") {
  TwoReplicas r(*pg);
  REQUIRE(r.a.acquire("gate", "a", t0, 10s, ok()).status == LeaseStatus::granted);
  auto polled = r.b.acquire("gate", "b", t0 + 1s, 10s, ok());  // b now believes a holds it
  CHECK(polled.status == LeaseStatus::refused);
  CHECK(polled.holder == "a");
  CHECK(polled.term == 1);

  REQUIRE(r.a.release("gate", "a", ok()).status == LeaseStatus::released);
  auto taken = r.b.acquire("gate", "b", t0 + 2s, 10s, ok());  // released early: at once
  CHECK(taken.status == LeaseStatus::granted);
  CHECK(taken.holder == "b");
  CHECK(taken.term == 2);
  CHECK(taken.expiry == forgemeter::lease_stamp(t0 + 12s));

  // a believes b holds it; b's lease expires at t0 + 12 s: a takes it exactly then, not before.
  CHECK(r.a.acquire("gate", "a", t0 + 11999ms, 10s, ok()).status == LeaseStatus::refused);
  auto back = r.a.acquire("gate", "a", t0 + 12s, 10s, ok());
  CHECK(back.status == LeaseStatus::granted);
  CHECK(back.term == 3);
}

FM_SUITE_PG_TEST("postgres hints: a holder whose lease another took meanwhile is refused, and its release is lost") {
  TwoReplicas r(*pg);
  REQUIRE(r.a.acquire("gate", "a", t0, 10s, ok()).status == LeaseStatus::granted);
  REQUIRE(r.a.renew("gate", "a", t0 + 1s, 10s, ok()).status == LeaseStatus::granted);     // a: "mine, TTL recorded"
  REQUIRE(r.b.acquire("gate", "b", t0 + 11s, 10s, ok()).status == LeaseStatus::granted);  // a's expired at t0 + 11 s

  auto re = r.a.acquire("gate", "a", t0 + 12s, 10s, ok());  // the holder's re-acquire, a stale hint
  CHECK(re.status == LeaseStatus::refused);
  CHECK(re.holder == "b");
  CHECK(re.term == 2);
  auto renewed = r.a.renew("gate", "a", t0 + 12s, 10s, ok());
  CHECK(renewed.status == LeaseStatus::refused);
  CHECK(renewed.holder == "b");
  auto released = r.a.release("gate", "a", ok());
  CHECK(released.status == LeaseStatus::lost);
  CHECK(released.holder == "b");
  CHECK(r.b.inspect("gate", ok()).holder == "b");  // nothing changed

  // a's store still believes it holds "gate" when b releases and a re-acquires: a change of hands, term + 1.
  REQUIRE(r.b.release("gate", "b", ok()).status == LeaseStatus::released);
  REQUIRE(r.a.acquire("gate", "a", t0 + 13s, 10s, ok()).status == LeaseStatus::granted);
  REQUIRE(r.b.release("gate", "a", ok()).status == LeaseStatus::released);  // b's store releases a's lease for a
  CHECK(r.a.release("gate", "a", ok()).status == LeaseStatus::not_held);
  auto again = r.a.acquire("gate", "a", t0 + 14s, 10s, ok());
  CHECK(again.status == LeaseStatus::granted);
  CHECK(again.term == 4);
}

FM_SUITE_PG_TEST("postgres hints: a renewal with a TTL larger than any recorded still raises the record") {
  TwoReplicas r(*pg);
  fmtest::PgSession s(*pg);
  auto recorded_ttl = [&] {
    auto rows = s.exec("SELECT ttl_ms FROM \"" + r.table.name() + "_terms\" WHERE name = 'gate'");
    REQUIRE(rows);
    REQUIRE(rows->size() == 1);
    return *(*rows)[0][0];
  };
  REQUIRE(r.a.acquire("gate", "a", t0, 10s, ok()).status == LeaseStatus::granted);
  REQUIRE(r.a.renew("gate", "a", t0 + 1s, 5s, ok()).status == LeaseStatus::granted);  // within the record
  CHECK(recorded_ttl() == "10000");
  REQUIRE(r.a.renew("gate", "a", t0 + 2s, 20s, ok()).status == LeaseStatus::granted);
  CHECK(recorded_ttl() == "20000");
  REQUIRE(r.a.acquire("gate", "a", t0 + 3s, 30s, ok()).status == LeaseStatus::granted);  // a re-acquire, larger
  CHECK(recorded_ttl() == "30000");
}
