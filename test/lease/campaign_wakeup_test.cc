// Campaign tests on a ManualClock: a waiting candidate is woken by the store
// (LeaseChanges) when the lease is released, and tries at the refusing
// holder's expiry; with the wake-up suppressed (FaultyStore::wake_ups off) it
// takes over at its next poll, as a lost wake-up would have it.
#include <doctest/doctest.h>

#include "lease/campaign_fixture.h"

namespace forgemeter::testing {

TEST_CASE("campaign: a release wakes a waiting candidate at once; suppressed, it waits for its next poll") {
  Sim sim;
  auto a = sim.candidate("host-a");
  auto b = sim.candidate("host-b");
  bool woken = true;
  SUBCASE("wake-ups on") { woken = true; }
  SUBCASE("wake-ups suppressed") { woken = false; }
  b->store().wake_ups(woken);
  a->start();
  REQUIRE(sim.step_until(
      1, [&] { return !a->terms().empty(); }, kTtl));
  b->start();
  REQUIRE(b->store().await_count(Op::acquire, LeaseStatus::refused, 1));
  const SteadyTime polled = of(b->store().calls(), Op::acquire).at(0).sent;
  sim.run_for(10s, 2);  // both parked: a between renewals, b until its next poll
  const SteadyTime stopped = sim.clock.steady_now();
  a->stop();
  REQUIRE(a->await_finished());
  REQUIRE(sim.step_until(
      1, [&] { return !b->terms().empty(); }, kTtl));
  const auto terms = b->terms();
  CHECK(terms[0].number == 2);
  if (woken) {
    CHECK(terms[0].began == stopped);  // no simulated time passed
    CHECK(b->store().count(Op::acquire) == 2);
  } else {
    CHECK(terms[0].began == polled + kThird);  // retry: TTL/3
  }
  CHECK(sim.ledger.max_serving() == 1);
}

TEST_CASE("campaign: a candidate tries at the refusing holder's expiry, not at the poll after it") {
  Sim sim;
  auto a = sim.candidate("host-a");
  auto b = sim.candidate("host-b");
  a->start();
  REQUIRE(sim.step_until(
      1, [&] { return !a->terms().empty(); }, kTtl));
  sim.run_for(7s, 1);
  a->store().set_all({Fault::unreachable});  // a's renewals get no answer: its lease runs out
  b->start();
  REQUIRE(sim.step_until(
      2, [&] { return !b->terms().empty(); }, 5min));
  const auto a_calls = of(a->store().calls(), Op::acquire);
  REQUIRE(!a_calls.empty());
  const UtcMillis expiry = lease_stamp(a_calls.at(0).now) + std::chrono::milliseconds(kTtl / 1ms);
  std::optional<CallRecord> granted;
  for (const auto& c : of(b->store().calls(), Op::acquire))
    if (c.status == LeaseStatus::granted) granted = c;
  REQUIRE(granted.has_value());
  CHECK(lease_stamp(granted->now) == expiry);  // polls at +7 s, +37 s, +67 s; the expiry at +90 s
  CHECK(sim.ledger.max_serving() == 1);
}

namespace {

// Refuses every acquire as PostgreSQL's quarantine does: held by nobody, no expiry.
class Quarantined final : public LeaseStore {
 public:
  LeaseResult acquire(std::string_view, std::string_view, WallTime, Duration, const Deadline&) override {
    LeaseResult r;
    r.status = LeaseStatus::refused;
    r.term = 7;
    return r;
  }
  LeaseResult renew(std::string_view, std::string_view, WallTime, Duration, const Deadline&) override {
    LeaseResult r;
    r.status = LeaseStatus::refused;
    return r;
  }
  LeaseResult release(std::string_view, std::string_view, const Deadline&) override {
    LeaseResult r;
    r.status = LeaseStatus::not_held;
    return r;
  }
  LeaseState inspect(std::string_view, const Deadline&) override { return {}; }
};

}  // namespace

TEST_CASE("campaign: a refusal that reports no holder (a quarantine) is polled every retry, not at once") {
  Sim sim;
  Candidate c("host-c", std::make_shared<Quarantined>(), sim.clock, Sim::spec());
  c.start();
  sim.run_for(kTtl, 1);
  CHECK(c.store().count(Op::acquire) == 4);  // at 0, 30, 60 and 90 s
}

}  // namespace forgemeter::testing
