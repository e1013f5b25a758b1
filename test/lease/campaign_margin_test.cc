// Campaign tests of the step-down margin and the serving window, on a
// ManualClock (wall and steady time move together, to the nanosecond): the store
// records expiry E = floor_ms(stamp) + T, and the term must end at least T/6
// (T − W for a window W) before E, whatever the sub-millisecond offset of the
// instant the proving call was sent; the successor that the store lets in at
// E finds the old gate already false.
#include <doctest/doctest.h>

#include "lease/campaign_fixture.h"

namespace forgemeter::testing {
namespace {

// Steps a ManualClock to exactly `t`, whenever `n` threads are parked.
void step_to(Sim& sim, SteadyTime t, std::size_t n) {
  while (sim.clock.steady_now() < t) sim.step(n, t - sim.clock.steady_now());
}

std::optional<CallRecord> first(const std::vector<CallRecord>& calls, Op op) {
  for (const auto& c : calls)
    if (c.op == op) return c;
  return std::nullopt;
}

CampaignSpec owned(Duration ttl) {
  auto s = Sim::spec(ttl);
  s.owner = "host-a";
  return s;
}

// The lowest window check_campaign_spec() accepts (forgemeter/campaign.h).
Duration lowest_window(Duration ttl) { return Duration(lease_ttl(ttl)) / 3 + 1ms; }

}  // namespace

TEST_CASE(
    "campaign: the term ends at least T − W (T/6 by default) before the recorded expiry, for every "
    "sub-millisecond offset, TTL and window; the successor let in at the expiry finds the old gate false") {
  const Duration ttls[] = {3ms, 4ms, 5ms, 7ms, 10ms, 91ms, 1001ms, 90s, std::chrono::days(366)};
  const Duration offsets[] = {0ns, 1ns, 1us, 250us, 500us, 900us, 1ms - 1ns};
  int cases = 0;
  for (const Duration ttl : ttls) {
    for (const bool narrow : {false, true}) {
      for (const Duration offset : offsets) {
        CAPTURE(ttl);
        CAPTURE(narrow);
        CAPTURE(offset);
        Sim sim;
        sim.clock.advance(offset);  // the Sim starts on a whole millisecond
        const Duration wall_minus_steady = std::chrono::duration_cast<Duration>(
            sim.clock.wall().time_since_epoch() - sim.clock.steady_now().time_since_epoch());
        auto spec = owned(ttl);
        if (narrow) spec.serve_for = lowest_window(ttl);
        REQUIRE_FALSE(check_campaign_spec(spec).has_value());
        const Duration t = lease_ttl(ttl), w = serving_window(spec);
        auto a = sim.candidate("host-a", spec);
        a->start();
        REQUIRE(a->await_terms(1));
        REQUIRE(sim.clock.await_parked(1));
        a->store().set_all({Fault::hang});  // the acquire, sent `offset` into its millisecond, is the last proof
        const Term term = *a->gate(0);
        const auto acq = first(a->store().calls(), Op::acquire);
        REQUIRE(acq);
        const SteadyTime d = term.deadline();
        CHECK(d == acq->sent + w - kStampSlack);

        step_to(sim, d - 1ns, 1);
        CHECK(term.valid());  // not a nanosecond early
        step_to(sim, d, 1);
        CHECK_FALSE(term.valid());
        const UtcMillis expiry = sim.inspect().expiry;
        CHECK(expiry == lease_stamp(acq->now) + lease_ttl(ttl));
        const Duration left = std::chrono::duration_cast<Duration>(expiry - sim.clock.wall());
        CHECK(left == t - w + kStampSlack - offset);  // exactly: the offset eats only the slack
        CHECK(left >= t - w);
        CHECK(6 * left >= t);  // at least T/6, as rationals

        // The store lets another owner in at the expiry (inclusive), not a
        // nanosecond before; b tries every nanosecond from just before it.
        const SteadyTime just_before{std::chrono::duration_cast<Duration>((WallTime(expiry) - 1ns).time_since_epoch()) -
                                     wall_minus_steady};
        step_to(sim, just_before, 1);
        CHECK(sim.clock.wall() == WallTime(expiry) - 1ns);
        auto spec_b = Sim::spec(ttl);
        spec_b.retry = 1ns;
        auto b = sim.candidate("host-b", spec_b);
        b->start();
        REQUIRE(b->store().await_count(Op::acquire, LeaseStatus::refused, 1));
        REQUIRE(sim.step_until(
            2, [&] { return b->store().count(Op::acquire, LeaseStatus::granted) == 1; }, 1ns));
        REQUIRE(b->await_terms(1));
        CHECK(sim.clock.wall() == WallTime(expiry));
        CHECK(b->terms()[0].number == 2);
        CHECK(b->terms()[0].valid_at_start);
        CHECK_FALSE(term.valid());
        CHECK(a->terms()[0].ended == d);  // the term's stop token fired at the deadline too
        CHECK(sim.ledger.max_serving() == 1);
        ++cases;
      }
    }
  }
  CHECK(cases == 9 * 2 * 7);
}

TEST_CASE("campaign: a renewal proves a narrower window from its own sending; the gate and the event follow W") {
  Sim sim;
  sim.clock.advance(400us);
  auto spec = Sim::spec();
  spec.serve_for = 45s;  // T/2: renewals every 30 s still keep the term
  auto a = sim.candidate("host-a", spec);
  a->start();
  REQUIRE(a->await_terms(1));
  const Term term = *a->gate(0);
  const SteadyTime t0 = term.deadline() - (45s - kStampSlack);
  sim.run_for(2 * kTtl, 1);
  CHECK(term.valid());
  CHECK(a->store().count(Op::renew, LeaseStatus::granted) == 6);
  CHECK(term.deadline() == t0 + 6 * kThird + 45s - kStampSlack);
  a->store().set_all({Fault::hang});
  const SteadyTime d = term.deadline();
  REQUIRE(sim.step_until(
      1, [&] { return Sim::first_term_ended(*a); }, kTtl));
  CHECK(a->terms()[0].ended == d);
  CHECK_FALSE(term.valid());
  REQUIRE(a->await_events(Kind::stepped_down, 1));
  CHECK(
      a->texts(Kind::stepped_down).at(0) ==
      "lease \"merge-gate-sweeper\": host-a stepped down (term 1 ended: no renewal proven within 45s of its sending)");
}

TEST_CASE("campaign spec: the serving window is from TTL/3 + 1 ms to TTL − TTL/6; serving_window() says which") {
  auto spec = owned(90s);
  CHECK(serving_window(spec) == 75s);
  for (Duration ok : std::initializer_list<Duration>{30s + 1ms, 31s, 45s, 75s}) {
    spec.serve_for = ok;
    CAPTURE(ok);
    CHECK_FALSE(check_campaign_spec(spec).has_value());
    CHECK(serving_window(spec) == ok);
  }
  for (Duration bad : std::initializer_list<Duration>{30s + 1ms - 1ns, 30s, 1s, 0ns, -1s, 75s + 1ns, 90s, 91s}) {
    spec.serve_for = bad;
    CAPTURE(bad);
    CHECK(check_campaign_spec(spec).has_value());
  }
  spec.serve_for = 30s;
  CHECK(check_campaign_spec(spec) ==
        "campaign: serving window 30s must be from 30.001s (TTL/3 + 1ms) to 1m15s (TTL − TTL/6) for TTL 1m30s");
  // Windows in whole nanoseconds: T = 4 ms, T/3 = 1.333… ms, T/6 = 0.666… ms.
  auto small = owned(4ms);
  CHECK(serving_window(small) == 4ms - 666'667ns);  // T − ⌈T/6⌉
  small.serve_for = 1'333'333ns + 1ms;
  CHECK_FALSE(check_campaign_spec(small).has_value());
  small.serve_for = 1'333'333ns + 1ms - 1ns;
  CHECK(check_campaign_spec(small).has_value());
  small.serve_for = 4ms - 666'667ns + 1ns;
  CHECK(check_campaign_spec(small).has_value());
  // The TTL is truncated to whole milliseconds first, the window is not.
  CHECK(serving_window(owned(3ms + 999us)) == 2500us);
  CHECK_FALSE(check_campaign_spec(owned(3ms)).has_value());
  CHECK(check_campaign_spec(owned(2ms + 999us)).has_value());
}

}  // namespace forgemeter::testing
