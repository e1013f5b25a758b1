// Campaign tests, deterministic on a ManualClock: electing, handing over,
// attempts that go wrong, outages, stopping. TTL 90 s unless stated (renewal
// and default retry 30 s, step-down 75 s after a proven call's sending).
#include <doctest/doctest.h>

#include <stdexcept>

#include "lease/campaign_fixture.h"

namespace forgemeter::testing {
TEST_CASE("campaign: elected at once, renews every TTL/3 from the sending, keeps its term (sticky)") {
  Sim sim;
  auto spec = Sim::spec(3min);
  auto a = sim.candidate("host-a", spec);
  const SteadyTime t0 = sim.clock.steady_now();
  a->start();
  REQUIRE(a->await_terms(1));
  REQUIRE(a->await_events(Kind::elected, 1));
  CHECK(a->texts(Kind::elected).at(0) == "lease \"merge-gate-sweeper\": host-a elected (term 1, TTL 3m)");
  CHECK(holder_name(sim.inspect().holder) == "host-a");
  sim.run_for(10 * 3min, 1);
  REQUIRE(sim.clock.await_parked(1));
  const auto renews = of(a->store().calls(), Op::renew);
  REQUIRE(renews.size() == 30);
  for (std::size_t i = 0; i < renews.size(); ++i) {
    CHECK(renews[i].sent == t0 + 1min * (i + 1));
    CHECK(renews[i].status == LeaseStatus::granted);
  }
  CHECK(a->terms().size() == 1);
  CHECK(a->serving_terms() == 1);
  CHECK(a->events().size() == 1);  // elected, nothing else
  a->stop();
  REQUIRE(a->await_finished());
  CHECK(a->end() == CampaignEnd::stopped);
  CHECK(sim.inspect().status == LeaseState::Status::free);
  CHECK(a->serving_terms() == 0);
  CHECK(a->texts(Kind::released) ==
        std::vector<std::string>{"lease \"merge-gate-sweeper\": host-a released the lease (term 1)"});
}

TEST_CASE(
    "campaign: five candidates, one serves across many TTLs, never two at once; hand-overs within one retry, terms "
    "increase") {
  Sim sim;
  std::vector<std::unique_ptr<Candidate>> cs;
  for (int i = 0; i < 5; ++i) cs.push_back(sim.candidate("host-" + std::to_string(i)));
  for (auto& c : cs) c->start();
  std::size_t running = cs.size();
  sim.run_for(10 * kTtl, running);
  REQUIRE(sim.clock.await_parked(running));
  auto terms = sim.ledger.terms();
  REQUIRE(terms.size() == 1);  // sticky: the first winner serves all along
  std::uint64_t last_term = terms[0].number;
  CHECK(last_term == 1);
  for (auto& c : cs)
    if (c->spec().owner != terms[0].owner) CHECK(c->store().count(Op::acquire, LeaseStatus::refused) >= 30);

  // Stop each holder in turn: the next one serves within one retry (30 s).
  for (int round = 0; round < 4; ++round) {
    const std::string holder = sim.ledger.terms().back().owner;
    auto it = std::find_if(cs.begin(), cs.end(), [&](auto& c) { return c->spec().owner == holder; });
    REQUIRE(it != cs.end());
    // Counted before the stop: a candidate whose retry falls due at this very
    // instant may take the released lease before the stopped one is reaped.
    const std::size_t before = sim.ledger.terms().size();
    const SteadyTime stopped_at = sim.clock.steady_now();
    (*it)->stop();
    REQUIRE((*it)->await_finished());
    CHECK((*it)->end() == CampaignEnd::stopped);
    cs.erase(it);
    --running;
    REQUIRE(sim.step_until(
        running, [&] { return sim.inspect().status == LeaseState::Status::held; }, kTtl));
    REQUIRE(sim.ledger.terms().size() >= before);  // the new term's work may still be starting
    auto& winner = **std::find_if(cs.begin(), cs.end(),
                                  [&](auto& c) { return c->spec().owner == holder_name(sim.inspect().holder); });
    REQUIRE(winner.await_terms(1));
    terms = sim.ledger.terms();
    REQUIRE(terms.size() == before + 1);
    CHECK(terms.back().began - stopped_at <= kThird);
    CHECK(terms.back().number > last_term);
    last_term = terms.back().number;
  }
  CHECK(sim.ledger.max_serving() == 1);
  terms = sim.ledger.terms();
  for (std::size_t i = 1; i < terms.size(); ++i) CHECK(terms[i].began >= terms[i - 1].ended);
}

TEST_CASE("campaign: a stopping holder hands over within one retry although the TTL is an hour") {
  Sim sim;
  auto spec = Sim::spec(1h);
  spec.retry = 1min;
  auto a = sim.candidate("host-a", spec);
  a->start();
  REQUIRE(a->await_terms(1));
  auto b = sim.candidate("host-b", spec);
  b->start();
  sim.run_for(5min, 2);
  const SteadyTime stop_at = sim.clock.steady_now();
  a->stop();
  REQUIRE(a->await_finished());
  REQUIRE(sim.step_until(
      1, [&] { return holder_name(sim.inspect().holder) == "host-b"; }, 1h));
  REQUIRE(b->await_terms(1));
  CHECK(b->terms()[0].began - stop_at <= 1min);  // only the release explains it: the lease had 55 min left
  CHECK(b->terms()[0].number == 2);
}

TEST_CASE("campaign: work that throws still releases, and the exception propagates after") {
  Sim sim;
  auto a = sim.candidate("host-a");
  a->start([](Term&) { throw std::runtime_error("sweep failed"); });
  REQUIRE(a->await_finished());
  REQUIRE(a->error());
  CHECK_THROWS_WITH_AS(std::rethrow_exception(a->error()), "sweep failed", std::runtime_error);
  CHECK_FALSE(a->end().has_value());
  CHECK(sim.inspect().status == LeaseState::Status::free);
  CHECK(a->count(Kind::released) == 1);
}

TEST_CASE("campaign: work that returns releases, campaign() returns work_returned") {
  Sim sim;
  auto a = sim.candidate("host-a");
  std::uint64_t fence = 0;
  a->start([&](Term& t) { fence = t.valid() ? t.number() : 0; });
  REQUIRE(a->await_finished());
  CHECK(a->end() == CampaignEnd::work_returned);
  CHECK(fence == 1);
  CHECK(sim.inspect().status == LeaseState::Status::free);
  CHECK(a->store().count(Op::release, LeaseStatus::released) == 1);
}

TEST_CASE("campaign: an unanswered attempt gives back what it may have taken; a healthy candidate serves") {
  Sim sim;
  auto a = sim.candidate("host-a");
  a->store().set(Op::acquire, {Fault::lose_answer});  // every attempt lands, every answer is lost
  a->start();
  REQUIRE(sim.clock.await_parked(1));
  CHECK(a->store().count(Op::release, LeaseStatus::released) == 1);  // what the lost answer had taken
  CHECK(sim.inspect().status == LeaseState::Status::free);
  auto b = sim.candidate("host-b");
  b->start();
  REQUIRE(b->await_terms(1));  // at b's first attempt, without waiting for any TTL
  sim.run_for(5 * kTtl, 2);
  REQUIRE(sim.clock.await_parked(2));
  CHECK(a->terms().empty());
  CHECK(b->terms().size() == 1);
  CHECK(holder_name(sim.inspect().holder) == "host-b");
  CHECK(a->store().count(Op::release, LeaseStatus::lost) >= 10);  // later releases change nothing
  REQUIRE(a->await_events(Kind::released, 1));
  CHECK(a->texts(Kind::released).at(0) ==
        "lease \"merge-gate-sweeper\": host-a released the lease an unanswered attempt had taken (term 1)");
}

TEST_CASE("campaign: a stop during an attempt leaves no lease") {
  Sim sim;
  auto a = sim.candidate("host-a");
  bool ignores_stop = false;
  SUBCASE("the stop abandons the attempt at once; its write lands") {
    a->store().set(Op::acquire, {Fault::slow, 20s, true});
  }
  SUBCASE("a store that ignores the stop answers granted after it") {
    a->store().set(Op::acquire, {Fault::block});
    ignores_stop = true;
  }
  a->start();
  if (ignores_stop)
    REQUIRE(a->store().await_blocked(1));
  else
    REQUIRE(sim.clock.await_parked(1));  // inside the store call
  CHECK(a->store().count(Op::acquire) == 0);
  const SteadyTime stopped = sim.clock.steady_now();
  a->stop();
  if (ignores_stop) a->store().unblock();
  REQUIRE(a->await_finished());  // no simulated time passes: the stop needs no timer
  CHECK(sim.clock.steady_now() == stopped);
  CHECK(a->end() == CampaignEnd::stopped);
  CHECK(sim.inspect().status == LeaseState::Status::free);
  CHECK(a->terms().empty());
  CHECK(a->count(Kind::elected) == 0);
  CHECK(a->store().count(Op::release, LeaseStatus::released) == 1);
  CHECK(a->count(Kind::store_unreachable) == 0);  // the campaign gave up on the call: no outage
  const auto acq = of(a->store().calls(), Op::acquire);
  REQUIRE(acq.size() == 1);
  CHECK(acq[0].status == (ignores_stop ? LeaseStatus::granted : LeaseStatus::no_answer));
}

TEST_CASE("campaign: a retry shorter than the store's answer time still elects") {
  Sim sim;
  auto spec = Sim::spec();
  spec.retry = 1s;
  auto a = sim.candidate("host-a", spec);
  a->store().set(Op::acquire, {Fault::slow, 5s});
  a->start();
  REQUIRE(sim.step_until(
      1, [&] { return a->store().count(Op::acquire) == 1; }, kTtl));
  REQUIRE(a->await_terms(1));
  const auto acq = of(a->store().calls(), Op::acquire);
  REQUIRE(acq.size() == 1);
  CHECK(acq[0].returned - acq[0].sent == 5s);
  CHECK(acq[0].status == LeaseStatus::granted);
}

TEST_CASE("campaign: an attempt the store never answers is abandoned at TTL/3, then released, next one a retry later") {
  Sim sim;
  auto a = sim.candidate("host-a");
  a->store().set(Op::acquire, {Fault::hang});
  a->start();
  REQUIRE(sim.step_until(
      1, [&] { return a->store().count(Op::acquire) >= 2; }, 10 * kTtl));
  const auto calls = a->store().calls();
  REQUIRE(calls.size() >= 3);
  CHECK(calls[0].op == Op::acquire);
  CHECK(calls[0].returned - calls[0].sent == kThird);
  CHECK(calls[0].status == LeaseStatus::no_answer);
  CHECK(calls[1].op == Op::release);
  CHECK(calls[1].sent == calls[0].returned);
  CHECK(calls[2].op == Op::acquire);
  CHECK(calls[2].sent - calls[0].sent == kThird);  // retry (TTL/3) from the previous attempt's start
}

TEST_CASE("campaign: an unreachable store elects nobody and says so once") {
  Sim sim;
  auto a = sim.candidate("host-a");
  a->store().set_all({Fault::unreachable});
  a->start();
  sim.run_for(10 * kTtl, 1);
  REQUIRE(sim.clock.await_parked(1));
  CHECK(a->terms().empty());
  CHECK(a->store().count(Op::acquire) == 31);  // one every 30 s
  CHECK(a->store().count(Op::release) == 31);  // each unanswered attempt is given back
  a->stop();
  REQUIRE(a->await_finished());
  CHECK(a->count(Kind::store_unreachable) == 1);
  CHECK(a->count(Kind::elected) == 0);
  CHECK(a->texts(Kind::store_unreachable).at(0) ==
        "lease \"merge-gate-sweeper\": host-a cannot reach the lease store (injected: store unreachable)");
}

TEST_CASE("campaign: each outage and each recovery is reported once") {
  Sim sim;
  auto a = sim.candidate("host-a");
  a->start();
  REQUIRE(a->await_terms(1));
  sim.run_for(kTtl, 1);
  a->store().set_all({Fault::unreachable});  // a blip shorter than the margin: the term survives
  sim.run_for(40s, 1);
  a->store().heal();
  sim.run_for(kTtl, 1);
  a->store().set_all({Fault::hang});  // a long outage: steps down, campaigns in vain
  sim.run_for(4 * kTtl, 1);
  a->store().heal();
  sim.run_for(kTtl, 1);
  a->stop();
  REQUIRE(a->await_finished());
  std::vector<Kind> outages;
  for (const auto& e : a->events())
    if (e.kind == Kind::store_unreachable || e.kind == Kind::store_reachable) outages.push_back(e.kind);
  CHECK(outages == std::vector<Kind>{Kind::store_unreachable, Kind::store_reachable, Kind::store_unreachable,
                                     Kind::store_reachable});
  CHECK(a->count(Kind::stepped_down) == 1);
  CHECK(a->count(Kind::renewed_late) == 1);
  CHECK(a->terms().size() == 2);
  const auto reachable = a->texts(Kind::store_reachable);
  CHECK(reachable.at(0).find("reaches the lease store again (no answer for ") != std::string::npos);
}

TEST_CASE("campaign: on_loss=stop ends after the first term") {
  Sim sim;
  auto spec = Sim::spec();
  spec.on_loss = OnLoss::stop;
  auto a = sim.candidate("host-a", spec);
  a->start();
  REQUIRE(a->await_terms(1));
  a->store().set_all({Fault::unreachable});
  REQUIRE(sim.step_until(
      1, [&] { return a->finished(); }, 2 * kTtl));
  CHECK(a->end() == CampaignEnd::term_ended);
  CHECK(a->count(Kind::elected) == 1);
  CHECK(a->store().count(Op::acquire) == 1);
}

TEST_CASE("campaign: a stop requested before campaign() touches no store") {
  Sim sim;
  auto a = sim.candidate("host-a");
  a->stop();
  a->start();
  REQUIRE(a->await_finished());
  CHECK(a->end() == CampaignEnd::stopped);
  CHECK(a->store().calls().empty());
}

}  // namespace forgemeter::testing
