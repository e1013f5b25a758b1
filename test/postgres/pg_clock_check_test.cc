// PostgresStore's clock check: a renewal returns the server's now() in its
// own statement (LeaseResult::store_now, no extra round trip), and a campaign
// whose Clock differs from it by more than a quarter of T − W says so once
// (LeaseEvent clock_differs); within it, never. The caller's clock is offset
// through the Clock interface (as campaign_clock_offset_test.cc does). TTL
// 3 s: renewals every 1 s, T − W = 500 ms, so the bound is 125 ms; the
// offsets are 0 (loopback: the round trip's half is well under 125 ms) and
// ±2 s; and renewals answered 400 ms late with no offset.
#include <doctest/doctest.h>

#include <atomic>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "forgemeter/campaign.h"
#include "forgemeter/postgres_store.h"
#include "support/eventually.h"
#include "support/pg_env.h"

using namespace std::chrono_literals;
using forgemeter::Duration;
using forgemeter::LeaseEvent;

namespace {

class OffsetClock final : public forgemeter::Clock {
 public:
  explicit OffsetClock(Duration offset) : offset_(offset) {}
  forgemeter::UtcMillis now() const override {
    return std::chrono::floor<std::chrono::milliseconds>(forgemeter::system_clock().now() + offset_);
  }
  forgemeter::SteadyTime steady_now() const override { return forgemeter::system_clock().steady_now(); }
  bool wait_until(forgemeter::SteadyTime deadline, std::stop_token stop) const override {
    return forgemeter::system_clock().wait_until(deadline, std::move(stop));
  }

 private:
  Duration offset_;
};

// A fault on purpose: the store's renewal answers `late` after the server
// ran it (a loaded client, a slow network back), so its now() sits early in
// a long round trip. The other calls go straight through.
class LateRenewals final : public forgemeter::LeaseStore {
 public:
  LateRenewals(forgemeter::LeaseStore& inner, Duration late) : inner_(inner), late_(late) {}
  forgemeter::LeaseResult acquire(std::string_view name, std::string_view owner, forgemeter::WallTime now, Duration ttl,
                                  const forgemeter::Deadline& d) override {
    return inner_.acquire(name, owner, now, ttl, d);
  }
  forgemeter::LeaseResult renew(std::string_view name, std::string_view owner, forgemeter::WallTime now, Duration ttl,
                                const forgemeter::Deadline& d) override {
    forgemeter::LeaseResult r = inner_.renew(name, owner, now, ttl, d);
    std::this_thread::sleep_for(late_);  // the fault itself, not a synchronisation
    if (r.status == forgemeter::LeaseStatus::granted) ++renewed;
    return r;
  }
  forgemeter::LeaseResult release(std::string_view name, std::string_view owner,
                                  const forgemeter::Deadline& d) override {
    return inner_.release(name, owner, d);
  }
  forgemeter::LeaseState inspect(std::string_view name, const forgemeter::Deadline& d) override {
    return inner_.inspect(name, d);
  }

  std::atomic<int> renewed{0};  // renewals granted so far

 private:
  forgemeter::LeaseStore& inner_;
  Duration late_;
};

// Campaigns with a clock `offset` from the server's through 4 renewals, each
// answered `late`; the clock_differs events it got.
std::vector<std::string> warnings_with(const std::string& pg, Duration offset, Duration late = Duration::zero()) {
  fmtest::ScratchTable table(pg);
  forgemeter::PostgresStore pg_store({.conninfo = pg, .table = table.name()});
  LateRenewals store(pg_store, late);
  OffsetClock clock(offset);
  std::mutex mu;
  std::vector<std::string> told;
  forgemeter::CampaignSpec spec{.name = "clocked", .owner = "host-a", .ttl = 3s, .clock = &clock};
  spec.on_event = [&](const LeaseEvent& e) {
    std::lock_guard lock(mu);
    if (e.kind == LeaseEvent::Kind::clock_differs) told.push_back(e.text);
  };
  std::stop_source stop;
  std::jthread runner([&] {
    forgemeter::campaign(store, spec, stop.get_token(), [&](forgemeter::Term& term) {
      while (!term.stop_token().stop_requested()) std::this_thread::sleep_for(10ms);
    });
  });
  // A window of four granted renewals (every 1 s): what is checked is that
  // the event comes at most once in it, or never. Counted, not timed: on a
  // loaded machine the first acquire alone (a connection, the tables) can take
  // seconds, and a timed window then held fewer renewals or none. The bound is
  // liveness only (30 s for four renewals on a loaded 2-core machine).
  REQUIRE(fmtest::eventually([&] { return store.renewed.load() >= 4; }, 30s));
  const auto st = store.inspect("clocked", forgemeter::Deadline::after(forgemeter::system_clock(), 5s));
  CHECK(st.status == forgemeter::LeaseState::Status::held);
  stop.request_stop();
  runner.join();
  std::lock_guard lock(mu);
  return told;
}

}  // namespace

FM_SUITE_PG_TEST("postgres: a renewal reads the server's clock in its own statement") {
  fmtest::ScratchTable table(*pg);
  forgemeter::PostgresStore store({.conninfo = *pg, .table = table.name()});
  const auto& clock = forgemeter::system_clock();
  const auto now = clock.now();
  const auto ok = [&] { return forgemeter::Deadline::after(clock, 10s); };
  REQUIRE(store.acquire("n", "a", now, 10s, ok()).store_now == forgemeter::UtcMillis{});  // renew's answer alone
  const auto sent = std::chrono::floor<std::chrono::milliseconds>(clock.now());
  const auto r = store.renew("n", "a", now, 10s, ok());
  const auto answered = clock.now();
  REQUIRE(r.status == forgemeter::LeaseStatus::granted);
  CHECK(r.store_now != forgemeter::UtcMillis{});
  // One machine, one clock: the statement read it between the sending and the
  // answer (bounded by the span itself, not a fixed window a loaded machine
  // can outlast; 1 ms for the server's rounding).
  CHECK(r.store_now >= sent - 1ms);
  CHECK(r.store_now <= answered + 1ms);
}

FM_SUITE_PG_TEST("postgres campaign: a clock off the server's by more than (T - W)/4 is told once, never within it") {
  CHECK(warnings_with(*pg, 0s).empty());
  const auto ahead = warnings_with(*pg, 2s);
  REQUIRE(ahead.size() == 1);
  CHECK(
      ahead[0] ==
      "lease \"clocked\": host-a has a clock about 2s ahead of the lease store server's (more than a quarter of T - W "
      "= 500ms: replicas whose clocks differ by more than T - W overlap; synchronise the clocks, "
      "docs/lease-timing.md)");
  const auto behind = warnings_with(*pg, -2s);
  REQUIRE(behind.size() == 1);
  CHECK(behind[0].find("a clock about 2s behind the lease store server's") != std::string::npos);
}

FM_SUITE_PG_TEST("postgres campaign: a slow answer alone is no clock difference") {
  // Answered 400 ms after the server's now(): judged from the round trip's
  // midpoint that would be 200 ms off, past the 125 ms bound; the server's
  // reading is inside the span from sending to answer, so nothing is proven.
  CHECK(warnings_with(*pg, 0s, 400ms).empty());
  // Past the span by more than the bound, it still is: 2 s ahead, answered late.
  CHECK(warnings_with(*pg, -2s, 400ms).size() == 1);
}
