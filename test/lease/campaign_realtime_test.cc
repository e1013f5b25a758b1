// Campaign tests on the real clock: what the ManualClock tests prove, once more
// with real threads racing real time. Each TTL states its margin; they are
// sized for a loaded 2-core machine under TSan.
#include <doctest/doctest.h>

#include <thread>

#include "forgemeter/campaign.h"
#include "forgemeter/memory_store.h"
#include "lease/candidate.h"

namespace forgemeter::testing {
namespace {

using namespace std::chrono_literals;
using Kind = LeaseEvent::Kind;

CampaignSpec spec(Duration ttl, std::optional<Duration> retry = {}) {
  CampaignSpec s;
  s.name = "merge-gate-sweeper";
  s.ttl = ttl;
  s.retry = retry;
  return s;
}

// The wall time at a steady instant of the real clocks.
WallTime wall_at(SteadyTime t) {
  return std::chrono::system_clock::now() -
         std::chrono::duration_cast<WallTime::duration>(std::chrono::steady_clock::now() - t);
}

}  // namespace

TEST_CASE("campaign, real clock: five candidates, one serves across three TTLs, never two at once") {
  // TTL 2.4 s: renewals every 800 ms; the holder steps down only if no renewal
  // is proven within 2 s of its sending, i.e. after a stall of 1.2 s or more
  // — a margin for TSan on a loaded 2-core machine.
  auto shared = std::make_shared<MemoryStore>();
  Ledger ledger;
  std::vector<std::unique_ptr<Candidate>> cs;
  for (int i = 0; i < 5; ++i)
    cs.push_back(
        std::make_unique<Candidate>("host-" + std::to_string(i), shared, system_clock(), spec(2400ms), &ledger));
  const SteadyTime started = std::chrono::steady_clock::now();
  for (auto& c : cs) c->start();
  std::this_thread::sleep_for(7200ms);  // observation window, not synchronisation: three TTLs
  const SteadyTime stopping = std::chrono::steady_clock::now();
  for (auto& c : cs) c->stop();
  for (auto& c : cs) REQUIRE(c->await_finished());
  CHECK(ledger.max_serving() == 1);
  const auto terms = ledger.terms();
  REQUIRE(terms.size() == 1);
  // The one term spans the window: elected at once, still serving when the stop came.
  CHECK(terms[0].began - started < 1s);
  CHECK(terms[0].ended >= stopping);
  std::size_t renewals = 0;
  for (auto& c : cs) renewals += c->store().count(Op::renew, LeaseStatus::granted);
  CHECK(renewals >= 6);  // 9 due; a loaded machine may delay a few
}

TEST_CASE("campaign, real clock: a stopping holder hands over within one retry (TTL an hour)") {
  // Retry 100 ms; allowed 100 ms + 900 ms for scheduling. Without the release
  // the successor would wait for the hour.
  auto shared = std::make_shared<MemoryStore>();
  Candidate a("host-a", shared, system_clock(), spec(1h, 100ms));
  Candidate b("host-b", shared, system_clock(), spec(1h, 100ms));
  a.start();
  REQUIRE(a.await_terms(1));
  b.start();
  REQUIRE(b.store().await_count(Op::acquire, LeaseStatus::refused, 1));
  const SteadyTime stop_at = std::chrono::steady_clock::now();
  a.stop();
  REQUIRE(b.await_terms(1, 5s));
  const auto took = b.terms()[0].began - stop_at;
  MESSAGE("hand-over after a clean stop took " << std::chrono::duration<double, std::milli>(took).count() << " ms");
  CHECK(took < 1s);
  CHECK(b.terms()[0].number == 2);
}

TEST_CASE("campaign, real clock: a holder whose store dies steps down with half the TTL/6 margin left") {
  // TTL 3 s: the step-down is due 2.5 s after the last proven renewal's
  // sending, 500 ms before the recorded expiry; the check allows the campaign
  // thread 250 ms (half the margin) to wake up late: three busy loops on a
  // 2-core machine can delay a wakeup by more than 100 ms.
  auto shared = std::make_shared<MemoryStore>();
  Candidate a("host-a", shared, system_clock(), spec(3s));
  a.start();
  REQUIRE(a.await_terms(1));
  REQUIRE(a.store().await_count(Op::renew, LeaseStatus::granted, 1));
  a.store().set_all({Fault::hang});
  REQUIRE(a.await_events(Kind::stepped_down, 1, 10s));  // posted after the term's end was recorded
  const auto ended = a.terms()[0].ended;
  REQUIRE(ended != SteadyTime{});
  const UtcMillis expiry = shared->inspect("merge-gate-sweeper", Deadline::after(system_clock(), 1s)).expiry;
  const auto left = expiry - wall_at(ended);
  MESSAGE("stepped down " << std::chrono::duration<double, std::milli>(left).count()
                          << " ms before the recorded expiry (margin 500 ms)");
  CHECK(left >= 250ms);
}

TEST_CASE("campaign, real clock: a retry shorter than the store's answer time still elects") {
  // The store answers in 100 ms, the retry is 20 ms, the attempt bound TTL/3 = 1 s.
  auto shared = std::make_shared<MemoryStore>();
  Candidate a("host-a", shared, system_clock(), spec(3s, 20ms));
  a.store().set(Op::acquire, {Fault::slow, 100ms});
  a.start();
  REQUIRE(a.await_terms(1, 5s));
  CHECK(a.store().count(Op::acquire, LeaseStatus::no_answer) == 0);
}

TEST_CASE("campaign, real clock: an unanswered attempt is given back, so a healthy candidate serves within seconds") {
  // TTL an hour, retry 200 ms: only the release after the lost answer lets b in.
  auto shared = std::make_shared<MemoryStore>();
  Candidate a("host-a", shared, system_clock(), spec(1h, 200ms));
  Candidate b("host-b", shared, system_clock(), spec(1h, 200ms));
  a.store().set(Op::acquire, {Fault::lose_answer});
  a.start();
  REQUIRE(a.store().await_count(Op::release, LeaseStatus::released, 1));
  const SteadyTime start = std::chrono::steady_clock::now();
  b.start();
  REQUIRE(b.await_terms(1, 5s));
  CHECK(b.terms()[0].began - start < 2s);
  CHECK(a.terms().empty());
}

}  // namespace forgemeter::testing
