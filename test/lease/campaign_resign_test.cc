// Campaign tests on a ManualClock: an operator's resign request
// (LeaseStore::resign) ends the holder's term as for a stop — at once when the
// store wakes the holder (LeaseChanges), else at its next renewal — the lease
// is released, the successor takes over, and the resigned holder campaigns
// again only one TTL later, so leadership moves instead of bouncing back.
#include <doctest/doctest.h>

#include "lease/campaign_fixture.h"

namespace forgemeter::testing {

TEST_CASE("campaign: a resign request hands the lease on; the resigned holder stays out one TTL") {
  Sim sim;
  auto a = sim.candidate("host-a");
  auto b = sim.candidate("host-b");
  bool woken = true;
  SUBCASE("the holder woken by the store") { woken = true; }
  SUBCASE("the holder's wake-up suppressed: its next renewal reads the request") { woken = false; }
  a->store().wake_ups(woken);
  b->store().wake_ups(true);
  a->start();
  REQUIRE(sim.step_until(
      1, [&] { return !a->terms().empty(); }, kTtl));
  b->start();
  REQUIRE(b->store().await_count(Op::acquire, LeaseStatus::refused, 1));
  sim.run_for(10s, 2);  // both parked: a between renewals, b until its next poll
  const SteadyTime asked = sim.clock.steady_now();
  const LeaseResult r = sim.shared->resign(kLease, Deadline::after(system_clock(), 5s));
  REQUIRE(r.status == LeaseStatus::granted);
  CHECK(r.term == 1);
  CHECK(holder_name(r.holder) == "host-a");
  REQUIRE(sim.step_until(
      2, [&] { return !b->terms().empty(); }, kTtl));
  const auto a_terms = a->terms();
  const SteadyTime ended = woken ? asked : a_terms.at(0).began + kThird;  // the renewal after the request
  CHECK(a_terms.at(0).ended == ended);
  CHECK(b->terms().at(0).began == ended);  // the release woke b: no simulated time passed
  CHECK(b->terms().at(0).number == 2);
  REQUIRE(a->await_events(Kind::resigned, 1));
  CHECK(a->texts(Kind::resigned) ==
        std::vector<std::string>{"lease \"merge-gate-sweeper\": host-a resigned (term 1 ended: asked to step "
                                 "down; campaigns again in 1m30s)"});
  REQUIRE(a->await_events(Kind::released, 1));  // posted after the store answers, which b may see first
  CHECK(a->count(Kind::released) == 1);
  // a's next acquire comes one TTL after its release, not at b's change of hands.
  REQUIRE(sim.step_until(
      2, [&] { return of(a->store().calls(), Op::acquire).size() >= 2; }, 2 * kTtl));
  const auto releases = of(a->store().calls(), Op::release);
  REQUIRE(releases.size() == 1);
  CHECK(of(a->store().calls(), Op::acquire).at(1).sent == releases[0].returned + kTtl);
  CHECK(of(a->store().calls(), Op::acquire).at(1).status == LeaseStatus::refused);  // b kept it
  CHECK(sim.ledger.max_serving() == 1);
}

TEST_CASE("campaign: a resign request for an earlier term does not end a later one") {
  Sim sim;
  auto a = sim.candidate("host-a");
  a->store().wake_ups(true);
  a->start();
  REQUIRE(sim.step_until(
      1, [&] { return !a->terms().empty(); }, kTtl));
  REQUIRE(sim.shared->resign(kLease, Deadline::after(system_clock(), 5s)).status == LeaseStatus::granted);
  REQUIRE(a->await_events(Kind::resigned, 1));
  // Nobody else campaigns: a takes term 2 one TTL later and keeps it through renewals.
  REQUIRE(sim.step_until(
      1, [&] { return a->terms().size() >= 2; }, 2 * kTtl));
  sim.run_for(3 * kThird, 1);
  CHECK(a->terms().at(1).number == 2);
  CHECK(a->serving_terms() == 1);
  CHECK(a->count(Kind::resigned) == 1);
}

}  // namespace forgemeter::testing
