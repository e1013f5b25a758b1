// Replicas' wall clocks disagree: the store's expiry is the holder's wall
// stamp + T, and a candidate judges it by its own wall clock. A candidate
// whose clock runs ahead of the holder's by X takes over a stalled holder's
// lease X early, while the holder serves until D, T − W before the expiry
// by its own clock. So X ≤ T − W never overlaps, and a larger X overlaps by
// X − (T − W) (less the stamp's slack). Checked on a ManualClock with the
// candidate's wall face offset through the Clock interface, as
// docs/lease-timing.md states the bound.
#include <doctest/doctest.h>

#include "lease/campaign_fixture.h"

namespace forgemeter::testing {
namespace {

// `base` with its wall face moved by `offset`; the steady face and the waits
// are base's (a ManualClock still sees the campaign park).
class OffsetClock final : public Clock {
 public:
  OffsetClock(const Clock& base, Duration offset) : base_(base), offset_(offset) {}
  UtcMillis now() const override { return std::chrono::floor<std::chrono::milliseconds>(base_.now() + offset_); }
  SteadyTime steady_now() const override { return base_.steady_now(); }
  bool wait_until(SteadyTime deadline, std::stop_token stop) const override {
    return base_.wait_until(deadline, std::move(stop));
  }

 private:
  const Clock& base_;
  Duration offset_;
};

struct Takeover {
  int max_serving = 0;
  Duration overlap{};  // the holder's term end − the successor's start, when positive
};

// Host a holds the lease and then stalls (its store hangs), so its acquire is
// its last proof; host b, whose wall clock is `ahead` of a's, campaigns every
// millisecond from just before the expiry its clock shows until it is elected.
Takeover take_over_with(Duration ahead) {
  Sim sim;
  auto a = sim.candidate("host-a", Sim::spec());
  a->start();
  REQUIRE(a->await_terms(1));
  REQUIRE(sim.clock.await_parked(1));
  a->store().set_all({Fault::hang});
  // b starts a few milliseconds before its clock shows the expiry (the
  // manual clock has not moved since a's acquire was sent).
  const SteadyTime b_starts = sim.clock.steady_now() + kTtl - ahead - 5ms;
  while (sim.clock.steady_now() < b_starts) sim.step(1, b_starts - sim.clock.steady_now());

  OffsetClock b_clock(sim.clock, ahead);
  auto spec_b = Sim::spec();
  spec_b.retry = 1ms;
  spec_b.clock = &b_clock;
  auto b = sim.candidate("host-b", spec_b);
  b->start();
  REQUIRE(sim.step_until(
      2, [&] { return b->store().count(Op::acquire, LeaseStatus::granted) == 1; }, kTtl));
  REQUIRE(b->await_terms(1));
  REQUIRE(sim.step_until(
      2, [&] { return Sim::first_term_ended(*a); }, kTtl));
  const TermRecord held = a->terms()[0], next = b->terms()[0];
  CHECK(next.number == held.number + 1);
  return {sim.ledger.max_serving(), held.ended > next.began ? held.ended - next.began : Duration::zero()};
}

}  // namespace

TEST_CASE("campaign: a candidate's clock ahead by up to T − W never overlaps; beyond, by the excess") {
  constexpr Duration margin = kTtl - kWindow;  // T − W = 15 s
  for (const Duration ahead : {Duration::zero(), Duration(1s), Duration(14s), margin - 1ms, margin}) {
    CAPTURE(ahead);
    const Takeover t = take_over_with(ahead);
    CHECK(t.max_serving == 1);
    CHECK(t.overlap == Duration::zero());
  }
  for (const Duration ahead : {margin + 2ms, margin + 1s, margin + 30s}) {
    CAPTURE(ahead);
    const Takeover t = take_over_with(ahead);
    const Duration excess = ahead - margin;
    CHECK(t.max_serving == 2);
    // b tries every millisecond, so it starts up to 1 ms after the expiry
    // its clock shows; the holder's deadline keeps the stamp's slack.
    CHECK(t.overlap <= excess - kStampSlack);
    CHECK(t.overlap >= excess - kStampSlack - 1ms);
  }
}

}  // namespace forgemeter::testing
