// EtcdStore while the cluster's members fail (a real three-member cluster per
// test, support/etcd_cluster.h). Campaigns run on the real clock with TTL
// 2.4 s: renewals every 800 ms, step-down 2000 ms after the last proven
// renewal was sent; gates are recorded as intervals on steady_clock from
// inside `work` (support/campaign_spans.h), which polls Term::valid() every
// millisecond, so "no overlap" is checked to about a millisecond.
#include <doctest/doctest.h>

#include <signal.h>

#include <chrono>
#include <memory>
#include <string>

#include "forgemeter/campaign.h"
#include "forgemeter/etcd_store.h"
#include "support/campaign_spans.h"
#include "support/etcd_cluster.h"
#include "support/eventually.h"
#include "support/skips.h"

using namespace std::chrono_literals;
using fmtest::check_no_overlap;
using fmtest::EtcdCluster;
using fmtest::SteadyClock;

namespace {

constexpr auto kTtl = 2400ms, kStepDown = kTtl - kTtl / 6, kRetry = kTtl / 3;
// Scheduling slack on a loaded 2-core machine, beside every bound below.
constexpr auto kSlack = 300ms;

bool skipping() {
  if (EtcdCluster::available()) return false;
  fmtest::skipped("no etcd binary on PATH (Debian package etcd-server): the etcd tests did not run");
  return true;
}

// Each candidate's own store; candidate i starts at member i, so the three
// talk to different members.
fmtest::StoreMaker etcd_stores(const EtcdCluster& cluster, const std::string& prefix) {
  return [&cluster, prefix](const std::string& owner) -> std::unique_ptr<forgemeter::LeaseStore> {
    auto o = forgemeter::EtcdStoreOptions::from_uri(cluster.uri(prefix));
    o.attempt_timeout = 400ms;
    const int first = owner.back() - '0';
    std::rotate(o.endpoints.begin(), o.endpoints.begin() + first % cluster.size(), o.endpoints.end());
    return std::make_unique<forgemeter::EtcdStore>(o);
  };
}

forgemeter::CampaignSpec spec(const std::string& name) { return {.name = name, .ttl = kTtl}; }

// Member i serves a linearizable read (one that needs a leader) within 500 ms.
bool serving(const EtcdCluster& cluster, int i) {
  return cluster.post(i, "/v3/kv/range", R"({"key":"AA=="})", 500ms).find("header") != std::string::npos;
}

}  // namespace

TEST_SUITE_BEGIN("etcd cluster" * doctest::skip(skipping()));

TEST_CASE("etcd: the Raft leader SIGKILLed mid-term: a new leader, the campaign goes on, never two valid terms") {
  EtcdCluster cluster(3);
  fmtest::MidTerm race(etcd_stores(cluster, "/leader-kill/"), spec("sweep"));
  const int leader = cluster.leader();
  REQUIRE(leader >= 0);
  const auto killed = SteadyClock::now();
  cluster.kill(leader);
  // A new leader among the two left, within a few election timeouts (500 ms).
  const int next = cluster.leader(5s);
  CHECK(next >= 0);
  CHECK(next != leader);
  // The campaign goes on: a term is valid 3 TTLs after the kill (the holder's
  // renewals reach the new quorum, or another candidate took over).
  REQUIRE(fmtest::eventually(
      [&] {
        const auto spans = race.spans.all();
        return !spans.empty() && spans.back().last_valid > killed + 3 * kTtl;
      },
      15s));
  race.finish();
  const auto spans = race.spans.all();
  check_no_overlap(spans);
  MESSAGE("terms served across the leader's kill: " << spans.size());
}

TEST_CASE("etcd: quorum lost: the holder steps down in time, nobody is elected; one member back: elected in a retry") {
  EtcdCluster cluster(3);
  fmtest::MidTerm race(etcd_stores(cluster, "/quorum/"), spec("sweep"));
  const int keep = (cluster.leader() + 1) % 3;  // kill the leader and one more
  const auto down = SteadyClock::now();
  for (int i = 0; i < 3; ++i)
    if (i != keep) cluster.kill(i);
  const auto last_proven = race.last_proven();
  REQUIRE(last_proven < down + kSlack);
  // The holder's gate closes by its last proven renewal + T - T/6.
  REQUIRE(fmtest::eventually([&] { return race.spans.all().back().last_valid < SteadyClock::now() - 50ms; }, 5s));
  const auto served = race.spans.all().back();
  CHECK(served.owner == race.holder);
  CHECK(served.last_valid <= last_proven + kStepDown + kSlack);
  // Nobody is elected while a quorum is gone (watched for 2 TTLs).
  CHECK_FALSE(fmtest::eventually([&] { return race.spans.started_after(down); }, 2 * kTtl));

  // One member back: quorum again. A candidate is elected within one retry of
  // the cluster having a leader again (plus the attempt timeout a call in
  // flight to a dead member may still spend).
  const int back = (keep + 1) % 3;
  cluster.restart(back);
  REQUIRE(cluster.leader(10s) >= 0);
  const auto quorum = SteadyClock::now();
  REQUIRE(fmtest::eventually([&] { return race.spans.started_after(quorum - kSlack); }, 10s));
  const auto elected = race.spans.all().back().start;
  MESSAGE("elected " << fmtest::ms(elected - quorum) << " ms after the cluster had a leader again");
  CHECK(elected - quorum <= kRetry + 400ms + kSlack);
  race.finish();
  check_no_overlap(race.spans.all());
}

TEST_CASE("etcd: the member a store talks to is SIGSTOPped: its calls fail over within their deadline") {
  EtcdCluster cluster(3);
  auto o = forgemeter::EtcdStoreOptions::from_uri(cluster.uri("/stalled/"));
  o.attempt_timeout = 300ms;
  forgemeter::EtcdStore store(o);
  const auto& clock = forgemeter::system_clock();
  auto deadline = [&] { return forgemeter::Deadline::after(clock, 3s); };
  REQUIRE(store.acquire("sweep", "a", clock.now(), 10s, deadline()).status == forgemeter::LeaseStatus::granted);
  cluster.stop(0);  // the store's first member, the one it answered from
  // What is measured is the store leaving a stalled member, not Raft electing
  // a leader among the two left (500 ms of election timeout, seconds on a
  // loaded machine, when member 0 led): a renewal is sent once one of them
  // serves a linearizable read, i.e. has a leader. Awaited, not timed; 30 s is
  // liveness only.
  REQUIRE(fmtest::eventually([&] { return serving(cluster, 1) || serving(cluster, 2); }, 30s));
  for (int i = 0; i < 5; ++i) {
    const auto sent = SteadyClock::now();
    const auto r = store.renew("sweep", "a", clock.now(), 10s, deadline());
    const auto took = SteadyClock::now() - sent;
    INFO("renewal " << i << ": " << to_string(r.status) << " " << r.error << " in " << fmtest::ms(took) << " ms");
    CHECK(r.status == forgemeter::LeaseStatus::granted);
    CHECK(took < 3s);
  }
  cluster.resume(0);
}

TEST_SUITE_END();
