// Campaign tests, deterministic on a ManualClock: serving a term, losing it,
// stepping down, and the self-invalidating gate. TTL 90 s (renewals every
// 30 s, step-down 75 s after a proven call's sending, margin 15 s).
#include <doctest/doctest.h>

#include <latch>

#include "lease/campaign_fixture.h"

namespace forgemeter::testing {
namespace {

std::optional<CallRecord> last_granted(const std::vector<CallRecord>& calls) {
  std::optional<CallRecord> out;
  for (const auto& c : calls)
    if ((c.op == Op::acquire || c.op == Op::renew) && c.status == LeaseStatus::granted) out = c;
  return out;
}

}  // namespace

TEST_CASE("campaign: a lease taken by another owner stops the holder at its next renewal, reported once") {
  Sim sim;
  auto a = sim.candidate("host-a");
  const SteadyTime t0 = sim.clock.steady_now();
  a->start();
  REQUIRE(a->await_terms(1));
  sim.run_for(10s, 1);
  // An intruder whose clock runs 200 s ahead sees the lease expired and takes it.
  auto r = sim.shared->acquire(kLease, "intruder", sim.clock.wall() + 200s, 1h, Deadline::after(system_clock(), 5s));
  REQUIRE(r.status == LeaseStatus::granted);
  REQUIRE(sim.step_until(
      1, [&] { return Sim::first_term_ended(*a); }, kTtl));
  CHECK(a->terms()[0].ended == t0 + kThird);  // at the refused renewal, not at the 75 s timer
  sim.run_for(5 * kTtl, 1);
  a->stop();
  REQUIRE(a->await_finished());
  CHECK(a->texts(Kind::lost) ==
        std::vector<std::string>{
            "lease \"merge-gate-sweeper\": host-a lost the lease to intruder (term 1 ended: renewal refused)"});
  CHECK(a->count(Kind::stepped_down) == 0);
  CHECK(a->count(Kind::elected) == 1);
  CHECK(a->store().count(Op::release) == 0);                         // someone else holds it: nothing to give back
  CHECK(a->store().count(Op::acquire, LeaseStatus::refused) >= 14);  // recampaigned every retry
  CHECK(holder_name(sim.inspect().holder) == "intruder");
}

TEST_CASE("campaign: a holder whose store dies steps down with the whole TTL/6 margin left") {
  Sim sim;
  sim.clock.advance(700us);  // wall stamps off the millisecond: the stores truncate them
  auto a = sim.candidate("host-a");
  const auto wall_minus_steady =
      sim.clock.wall() -
      WallTime(std::chrono::duration_cast<WallTime::duration>(sim.clock.steady_now().time_since_epoch()));
  a->start();
  REQUIRE(a->await_terms(1));
  sim.run_for(45s, 1);
  a->store().set_all({Fault::hang});
  REQUIRE(sim.step_until(
      1, [&] { return Sim::first_term_ended(*a); }, kTtl));
  const auto proven = last_granted(a->store().calls());
  REQUIRE(proven);
  const SteadyTime ended = a->terms()[0].ended;
  CHECK(ended == proven->sent + kProof);
  const UtcMillis expiry = sim.inspect().expiry;  // what the store recorded
  const WallTime wall_at_end =
      WallTime(std::chrono::duration_cast<WallTime::duration>(ended.time_since_epoch())) + wall_minus_steady;
  CHECK(expiry - wall_at_end >= kTtl / 6);               // 700 µs into its millisecond, the margin is whole
  CHECK(expiry - wall_at_end < kTtl / 6 + 1ms);          // and no more than a millisecond over it
  CHECK(holder_name(sim.inspect().holder) == "host-a");  // the store never answered the release
  REQUIRE(a->await_events(Kind::stepped_down, 1));
  CHECK(a->texts(Kind::stepped_down).at(0) ==
        "lease \"merge-gate-sweeper\": host-a stepped down (term 1 ended: no renewal proven within 1m15s of its "
        "sending)");
  sim.run_for(3 * kTtl, 1);
  CHECK(a->terms().size() == 1);  // elects nobody while the store cannot answer
}

TEST_CASE("campaign: the step-down counts from the sending, for a slow grant and a slow renewal") {
  Sim sim;
  auto a = sim.candidate("host-a");
  const SteadyTime t0 = sim.clock.steady_now();
  SteadyTime expected{};
  SUBCASE("slow grant") {
    a->store().set(Op::acquire, {Fault::slow, 20s});  // sent at 0 s, answers at 20 s
    a->store().set(Op::renew, {Fault::hang});
    expected = t0 + kProof;  // 55 s after the grant arrived
  }
  SUBCASE("slow renewal") {
    a->store().set(Op::renew, {Fault::slow, 20s});  // the first renewal, sent at 30 s, answers at 50 s
    a->store().on_call([&](const CallRecord& c) {
      if (c.op == Op::renew) a->store().set(Op::renew, {Fault::hang});  // then none answers
    });
    expected = t0 + kThird + kProof;
  }
  a->start();
  REQUIRE(sim.step_until(
      1, [&] { return Sim::first_term_ended(*a); }, 3 * kTtl));
  CHECK(a->terms()[0].ended == expected);
  REQUIRE(a->await_events(Kind::stepped_down, 1));
}

TEST_CASE("campaign: one failed renewal keeps the term") {
  Sim sim;
  auto a = sim.candidate("host-a");
  a->start();
  REQUIRE(a->await_terms(1));
  SUBCASE("refused connection") { a->store().set(Op::renew, {Fault::unreachable, {}, false, 1}); }
  SUBCASE("no answer until TTL/3") { a->store().set(Op::renew, {Fault::hang, {}, false, 1}); }
  sim.run_for(5 * kTtl, 1);
  CHECK(a->terms().size() == 1);
  CHECK(a->serving_terms() == 1);
  CHECK(a->store().count(Op::renew, LeaseStatus::no_answer) == 1);
  REQUIRE(a->await_events(Kind::renewed_late, 1));
  CHECK(a->texts(Kind::renewed_late).at(0) ==
        "lease \"merge-gate-sweeper\": host-a renewed late (term 1, after 1 unanswered renewal)");
  CHECK(a->count(Kind::stepped_down) == 0);
}

TEST_CASE("campaign: the gate reads false at the deadline while the campaign thread is blocked") {
  Sim sim;
  std::mutex mu;  // before the candidate: its later terms' work outlive nothing here
  std::optional<Term> gate;
  std::latch began(1);
  auto a = sim.candidate("host-a");
  a->store().set(Op::renew, {Fault::block});  // ignores its deadline, as a broken store would
  a->start([&](Term& t) {
    bool first = false;
    {
      std::lock_guard lock(mu);
      if (!gate) gate = t, first = true;
    }
    if (first) began.count_down();
    std::mutex m;
    std::condition_variable_any cv;
    std::unique_lock lock(m);
    cv.wait(lock, t.stop_token(), [] { return false; });
  });
  began.wait();
  const Term term = [&] {
    std::lock_guard lock(mu);
    return *gate;
  }();
  const SteadyTime t0 = term.deadline() - kProof;
  REQUIRE(sim.clock.await_parked(1));
  CHECK(term.valid());
  sim.clock.advance(kThird);  // the renewal goes out and blocks the campaign thread
  REQUIRE(a->store().await_blocked(1));
  sim.clock.advance(kProof - kThird - 1ms);
  CHECK(term.valid());
  CHECK(sim.clock.steady_now() == t0 + kProof - 1ms);
  sim.clock.advance(1ms);
  CHECK_FALSE(term.valid());                // on time, by itself
  CHECK(a->store().count(Op::renew) == 0);  // the campaign thread is still in the renewal
  CHECK_FALSE(term.stop_token().stop_requested());
  a->store().unblock();
  REQUIRE(sim.step_until(
      1, [&] { return term.stop_token().stop_requested(); }, kTtl));
  CHECK_FALSE(term.valid());                                      // for good: a later term has a Term of its own
  CHECK(a->store().count(Op::renew, LeaseStatus::granted) == 1);  // granted, but proven too late
  REQUIRE(a->await_events(Kind::stepped_down, 1));
}

TEST_CASE("campaign: a wall-clock step moves no step-down deadline") {
  Sim sim;
  auto a = sim.candidate("host-a");
  a->start();
  REQUIRE(a->await_terms(1));
  sim.run_for(35s, 1);
  a->store().set_all({Fault::hang});
  SUBCASE("forward") { sim.clock.set_wall(sim.clock.wall() + 1h); }
  SUBCASE("backward") { sim.clock.set_wall(sim.clock.wall() - 1h); }
  REQUIRE(sim.step_until(
      1, [&] { return Sim::first_term_ended(*a); }, 2 * kTtl));
  const auto proven = last_granted(a->store().calls());
  REQUIRE(proven);
  CHECK(a->terms()[0].ended == proven->sent + kProof);
}

TEST_CASE("campaign: a slow event callback delays no renewal and no stop") {
  Sim sim;
  auto a = sim.candidate("host-a");
  std::latch open(1), entered(1);
  a->before_event([&](const LeaseEvent& e) {
    if (e.kind == Kind::elected) {
      entered.count_down();
      open.wait();  // an observer stuck on a slow log sink
    }
  });
  a->start();
  entered.wait();
  sim.run_for(2 * kTtl, 1);  // renewals go on while the callback is stuck
  CHECK(a->store().count(Op::renew, LeaseStatus::granted) == 6);
  a->stop();
  // The stop is applied at once: work stopped, lease released, with the callback still stuck.
  const auto until = std::chrono::steady_clock::now() + 20s;
  while ((a->serving_terms() != 0 || sim.inspect().status != LeaseState::Status::free) &&
         std::chrono::steady_clock::now() < until)
    std::this_thread::yield();
  CHECK(a->serving_terms() == 0);
  CHECK(sim.inspect().status == LeaseState::Status::free);
  CHECK_FALSE(a->finished());  // campaign() returns only after the events are delivered
  open.count_down();
  REQUIRE(a->await_finished());
  CHECK(a->count(Kind::released) == 1);
}

}  // namespace forgemeter::testing
