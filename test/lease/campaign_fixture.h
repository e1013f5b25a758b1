// test/lease/campaign_fixture.h — what the deterministic campaign tests share:
// a ManualClock, a MemoryStore shared by the candidates, a Ledger, and the spec,
// and the clock's stepping with the test failing when the campaigns never park.
#pragma once

#include <doctest/doctest.h>

#include <memory>
#include <optional>
#include <vector>

#include "forgemeter/campaign.h"
#include "forgemeter/memory_store.h"
#include "forgemeter/testing/manual_clock.h"
#include "lease/candidate.h"

namespace forgemeter::testing {

using namespace std::chrono_literals;
using Kind = LeaseEvent::Kind;

inline constexpr std::string_view kLease = "merge-gate-sweeper";
// TTL 90 s: renewals every 30 s, the step-down 75 s (the serving window)
// less the stamp's millisecond (1 ms − 1 ns) after a proven call's sending.
inline constexpr Duration kTtl = 90s, kThird = 30s, kWindow = 75s, kProof = kWindow - kStampSlack;

struct Sim {
  ManualClock clock{UtcMillis(std::chrono::milliseconds(1'790'000'000'000))};
  std::shared_ptr<MemoryStore> shared = std::make_shared<MemoryStore>();
  Ledger ledger;

  static CampaignSpec spec(Duration ttl = kTtl) {
    CampaignSpec s;
    s.name = std::string(kLease);
    s.ttl = ttl;
    return s;
  }
  std::unique_ptr<Candidate> candidate(std::string owner, CampaignSpec s = spec()) {
    return std::make_unique<Candidate>(std::move(owner), shared, clock, std::move(s), &ledger);
  }
  static bool first_term_ended(const Candidate& c) {
    auto t = c.terms();
    return !t.empty() && t[0].ended != SteadyTime{};
  }
  LeaseState inspect() const { return shared->inspect(kLease, Deadline::after(system_clock(), 5s)); }
  // ManualClock::step and run_for, failing the test when the n threads do not park.
  Duration step(std::size_t n, Duration max = 24h * 365) {
    const std::optional<Duration> d = clock.step(n, max);
    REQUIRE_MESSAGE(d.has_value(), "fewer than " << n << " threads ever parked");
    return *d;
  }
  void run_for(Duration d, std::size_t n) {
    REQUIRE_MESSAGE(clock.run_for(d, n), "fewer than " << n << " threads parked (or parked again)");
  }
  // Steps time whenever n threads are parked, until pred() holds when they
  // are (or holds at all: a campaign that returned parks no more), within
  // `limit` of simulated time. pred() must read what the campaign threads
  // write before they park (store call records, term ends, finished()).
  template <class Pred>
  bool step_until(std::size_t n, Pred pred, Duration limit = 24h) {
    const SteadyTime end = clock.steady_now() + limit;
    const auto give_up = std::chrono::steady_clock::now() + 20s;
    for (;;) {
      while (!clock.await_parked(n, 1ms)) {
        if (pred()) return true;
        REQUIRE_MESSAGE(std::chrono::steady_clock::now() < give_up, "fewer than " << n << " threads parked");
      }
      if (pred()) return true;
      if (clock.steady_now() >= end) return false;
      step(n, end - clock.steady_now());
    }
  }
};

// The calls of one kind, in order.
inline std::vector<CallRecord> of(const std::vector<CallRecord>& calls, Op op) {
  std::vector<CallRecord> out;
  for (const auto& c : calls)
    if (c.op == op) out.push_back(c);
  return out;
}

}  // namespace forgemeter::testing
