// Campaign metrics (forgemeter/lease_metrics.h), deterministic on a ManualClock
// against FaultyStores around one MemoryStore: the leader figure follows the
// Term's own validity (an election, a release, a step-down, a campaign thread
// stuck past its deadline), the term, changes of hands, the timestamps, the
// store's round trips and errors, health(). TTL 90 s (renewals every 30 s,
// step-down 75 s after a proven call's sending).
#include <doctest/doctest.h>

#include "lease/campaign_fixture.h"
#include "support/promtool.h"

namespace forgemeter::testing {
namespace {

CampaignSpec with(LeaseMetrics& m) {
  CampaignSpec s = Sim::spec();
  s.metrics = &m;
  return s;
}

const LeaseOpFigures& op(const LeaseFigures& f, LeaseOp o) { return f.ops[static_cast<std::size_t>(o)]; }

}  // namespace

TEST_CASE("lease metrics: leader, term, changes and timestamps through an election and a hand-over") {
  Sim sim;
  LeaseMetrics ma, mb;
  const UtcMillis start = sim.clock.now();
  CHECK(ma.figures().last_held == UtcMillis{});  // never fed
  auto a = sim.candidate("host-a", with(ma));
  a->start();
  REQUIRE(a->await_terms(1));
  REQUIRE(sim.clock.await_parked(1));
  LeaseFigures f = ma.figures();
  CHECK(f.lease == kLease);
  CHECK(f.leader);
  CHECK(f.term == 1);
  CHECK(f.ttl == kTtl);
  CHECK(f.changes == 0);
  CHECK(f.last_renewal == start);
  CHECK(f.last_held == start);
  CHECK(op(f, LeaseOp::acquire).count == 1);
  CHECK(op(f, LeaseOp::acquire).buckets[0] == 1);  // no time passes on a ManualClock: <= 1 ms
  CHECK(ma.health() == std::nullopt);

  auto b = sim.candidate("host-b", with(mb));
  b->start();
  REQUIRE(b->store().await_count(Op::acquire, LeaseStatus::refused, 1));
  sim.run_for(kThird, 2);  // a renews, b is refused again
  f = ma.figures();
  CHECK(f.last_renewal == start + kThird);
  LeaseFigures g = mb.figures();
  CHECK_FALSE(g.leader);
  CHECK(g.term == 0);
  CHECK(g.last_held == start + kThird);  // a refusal by a live holder counts
  CHECK(g.last_renewal == UtcMillis{});

  a->stop();  // released: b takes it at its next attempt
  REQUIRE(a->await_finished());
  CHECK_FALSE(ma.figures().leader);
  CHECK(ma.figures().term == 1);  // the term last held stays
  CHECK(op(ma.figures(), LeaseOp::release).count == 1);
  REQUIRE(sim.step_until(
      1, [&] { return mb.figures().leader; }, kTtl));
  g = mb.figures();
  CHECK(g.term == 2);
  CHECK(g.changes == 1);  // host-a, then host-b
  CHECK(g.last_renewal == g.last_held);
}

TEST_CASE("lease metrics: leader reads 0 at the deadline while the campaign thread is stuck; health says so") {
  Sim sim;
  LeaseMetrics m;
  auto a = sim.candidate("host-a", with(m));
  a->store().set(Op::renew, {Fault::block});  // ignores its deadline, as a broken store would
  a->start();
  REQUIRE(a->await_terms(1));
  REQUIRE(sim.clock.await_parked(1));
  CHECK(m.figures().leader);
  sim.clock.advance(kThird);  // the renewal goes out and blocks the campaign thread
  REQUIRE(a->store().await_blocked(1));
  sim.clock.advance(kProof - kThird - 1ms);
  CHECK(m.figures().leader);
  sim.clock.advance(1ms);
  CHECK_FALSE(m.figures().leader);  // the term's own proof, not "elected": still in the renewal
  CHECK(a->count(Kind::stepped_down) == 0);
  CHECK(m.health() == std::nullopt);  // within T/6 of the deadline: the step-down may still come
  sim.clock.advance(kTtl / 6);
  const std::optional<std::string> why = m.health();
  REQUIRE(why.has_value());
  CHECK(*why == "term 1 lapsed 15.000s ago without stepping down");
  a->store().unblock();
  REQUIRE(a->await_events(Kind::stepped_down, 1));  // then it campaigns again (and may win at once)
}

TEST_CASE("lease metrics: an unreachable store counts errors per op, ends leadership, and is unhealthy after a TTL") {
  Sim sim;
  LeaseMetrics m;
  auto a = sim.candidate("host-a", with(m));
  a->start();
  REQUIRE(a->await_terms(1));
  REQUIRE(sim.clock.await_parked(1));
  a->store().set_all({Fault::unreachable});
  sim.run_for(kProof, 1);  // renewals at 30 s and 60 s go unanswered; the step-down at 75 s
  REQUIRE(a->await_events(Kind::stepped_down, 1));
  REQUIRE(sim.clock.await_parked(1));
  LeaseFigures f = m.figures();
  CHECK_FALSE(f.leader);
  CHECK(op(f, LeaseOp::renew).errors == 2);
  CHECK(op(f, LeaseOp::renew).count == 0);
  // the step-down's release, then one after each unanswered acquire (it may have taken the lease)
  CHECK(op(f, LeaseOp::release).errors == op(f, LeaseOp::acquire).errors + 1);
  CHECK(m.health() == std::nullopt);  // the last answer (the acquire) was 75 s ago, TTL 90 s
  sim.run_for(kTtl - kProof + 1ms, 1);
  const std::optional<std::string> why = m.health();
  REQUIRE(why.has_value());
  CHECK(why->starts_with("no answer from the lease store for 90."));
  CHECK(op(m.figures(), LeaseOp::acquire).errors >= 1);
  a->store().heal();
  REQUIRE(sim.step_until(
      1, [&] { return m.figures().leader; }, kTtl));
  CHECK(m.health() == std::nullopt);
  a->stop();
  REQUIRE(a->await_finished());
  CHECK(m.health() == std::nullopt);  // no campaign, no clock
  CHECK_FALSE(m.figures().leader);
}

TEST_CASE("lease metrics: the exposition escapes the lease name and lists every family") {
  Sim sim;
  LeaseMetrics m;
  CampaignSpec s = with(m);
  s.name = "a \"quoted\" \\ name\nwith a line\x01";
  auto a = sim.candidate("host-a", s);
  a->start();
  REQUIRE(a->await_terms(1));
  const std::string text = m.prometheus();
  CHECK(text.find("forgemeter_lease_leader{lease=\"a \\\"quoted\\\" \\\\ name\\nwith a line%01\"} 1\n") !=
        std::string::npos);
  for (const char* family : {"leader", "term", "changes_total", "ttl_seconds", "last_renewal_timestamp_seconds",
                             "last_held_timestamp_seconds", "store_request_duration_seconds", "store_errors_total"})
    CHECK(text.find(std::string("# TYPE forgemeter_lease_") + family + " ") != std::string::npos);
  CHECK(text.find("forgemeter_lease_ttl_seconds{lease=") != std::string::npos);
  CHECK(text.find("op=\"inspect\",le=\"+Inf\"} 0\n") != std::string::npos);
  CHECK(text.find("forgemeter_lease_last_held_timestamp_seconds{lease=\"a \\\"quoted\\\" \\\\ name\\nwith a "
                  "line%01\"} 1790000000\n") != std::string::npos);
  for (const char c : text) CHECK((c == '\n' || static_cast<unsigned char>(c) >= 0x20));
  CHECK(fmtest::promtool_check_metrics(text) == "");
}

}  // namespace forgemeter::testing
