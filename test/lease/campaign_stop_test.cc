// Campaign tests, deterministic on a ManualClock: a stop takes effect at once
// (the store call in flight is abandoned, not waited out), the release after
// a stop has TTL/3 unless a second stop asks for an immediate exit, and an
// outage is reported once however the store fails.
#include <doctest/doctest.h>

#include "lease/campaign_fixture.h"

namespace forgemeter::testing {
TEST_CASE("campaign: a stop during a renewal the store does not answer takes effect at once, not at TTL/3") {
  Sim sim;
  auto a = sim.candidate("host-a");
  a->start();
  REQUIRE(a->await_terms(1));
  a->store().set(Op::renew, {Fault::hang});
  sim.run_for(kThird + 10s, 1);  // the renewal went out 10 s ago; its bound is 20 s away
  REQUIRE(a->store().count(Op::renew) == 0);
  const SteadyTime stopped = sim.clock.steady_now();
  a->stop();
  REQUIRE(a->await_finished());
  CHECK(sim.clock.steady_now() == stopped);  // no simulated time passed
  CHECK(a->end() == CampaignEnd::stopped);
  const auto renewals = of(a->store().calls(), Op::renew);
  REQUIRE(renewals.size() == 1);
  CHECK(renewals[0].status == LeaseStatus::no_answer);
  CHECK(renewals[0].returned == stopped);
  CHECK(a->terms()[0].ended == stopped);
  CHECK(sim.inspect().status == LeaseState::Status::free);  // released after the stop
  CHECK(a->count(Kind::released) == 1);
  CHECK(a->count(Kind::store_unreachable) == 0);  // the campaign gave up on the call: no outage
}

TEST_CASE("campaign: after a stop the release has TTL/3 to land; a second stop (exit_now) cuts it at once") {
  Sim sim;
  std::stop_source exit_now;
  CampaignSpec s = Sim::spec();
  s.exit_now = exit_now.get_token();
  auto a = sim.candidate("host-a", s);
  Duration expected{};
  bool second_stop = false;
  SUBCASE("no second stop: the release waits out its TTL/3, as a held-up release needs") { expected = kThird; }
  SUBCASE("a second stop 5 s into the release: it ends then") {
    second_stop = true;
    expected = 5s;
  }
  a->start();
  REQUIRE(sim.step_until(
      1, [&] { return !a->terms().empty(); }, kTtl));
  REQUIRE(sim.clock.await_parked(1));
  a->store().set(Op::release, {Fault::hang});
  const SteadyTime stopped = sim.clock.steady_now();
  a->stop();
  if (second_stop) {
    REQUIRE(sim.clock.await_parked(1));  // the release waits on the clock
    sim.clock.advance(5s);
    exit_now.request_stop();
  }
  REQUIRE(sim.step_until(
      1, [&] { return a->finished(); }, kTtl));
  const auto releases = of(a->store().calls(), Op::release);
  REQUIRE(releases.size() == 1);
  CHECK(releases[0].sent == stopped);
  CHECK(releases[0].returned - releases[0].sent == expected);
  CHECK(releases[0].status == LeaseStatus::no_answer);
  CHECK(sim.clock.steady_now() - stopped == expected);
  CHECK(holder_name(sim.inspect().holder) == "host-a");  // unreleased: it expires, as after a crash
}

TEST_CASE("campaign: a release after a term's end (not a stop) keeps its TTL/3 bound") {
  Sim sim;
  auto a = sim.candidate("host-a");
  a->store().set(Op::release, {Fault::hang});
  a->start([](Term&) {}, Candidate::WorkTime::instant);
  REQUIRE(sim.step_until(
      1, [&] { return a->finished(); }, kTtl));
  const auto releases = of(a->store().calls(), Op::release);
  REQUIRE(releases.size() == 1);
  CHECK(releases[0].returned - releases[0].sent == kThird);
  CHECK(a->store().count(Op::renew) == 0);  // the work's return was seen before any renewal was due
  CHECK(a->end() == CampaignEnd::work_returned);
}

TEST_CASE("campaign: acquires that hang while the releases after them answer are one outage, reported once") {
  Sim sim;
  auto a = sim.candidate("host-a");
  a->store().set(Op::acquire, {Fault::hang});  // a row lock, say: the release's statement still answers
  a->start();
  sim.run_for(5 * kTtl, 1);
  const std::size_t attempts = a->store().count(Op::acquire, LeaseStatus::no_answer);
  CHECK(attempts >= 14);
  CHECK(a->store().count(Op::release, LeaseStatus::not_held) == attempts);  // each answered
  a->store().heal();
  // Elected within a TTL (the grant holds the clock until the work has begun).
  REQUIRE(sim.step_until(
      1, [&] { return !a->terms().empty(); }, kTtl));
  sim.run_for(kTtl, 1);
  a->store().set(Op::renew, {Fault::unreachable, {}, false, 1});  // a second outage: one renewal
  sim.run_for(2 * kTtl, 1);
  a->stop();
  REQUIRE(a->await_finished());  // every event delivered
  CHECK(a->count(Kind::elected) == 1);
  const auto down = a->texts(Kind::store_unreachable), up = a->texts(Kind::store_reachable);
  REQUIRE(down.size() == 2);
  REQUIRE(up.size() == 2);
  CHECK(down[0] ==
        "lease \"merge-gate-sweeper\": host-a cannot reach the lease store (injected: no answer by the deadline)");
  CHECK(down[1] == "lease \"merge-gate-sweeper\": host-a cannot reach the lease store (injected: store unreachable)");
  CHECK(up[1] == "lease \"merge-gate-sweeper\": host-a reaches the lease store again (no answer for 30s)");
  // From the first hung acquire's sending (its 30 s wait counts), to the grant.
  CHECK(up[0] == "lease \"merge-gate-sweeper\": host-a reaches the lease store again (no answer for 8m)");
  // In order: down, up, down, up.
  std::vector<Kind> order;
  for (const auto& e : a->events())
    if (e.kind == Kind::store_unreachable || e.kind == Kind::store_reachable) order.push_back(e.kind);
  CHECK(order == std::vector<Kind>{Kind::store_unreachable, Kind::store_reachable, Kind::store_unreachable,
                                   Kind::store_reachable});
}

}  // namespace forgemeter::testing
