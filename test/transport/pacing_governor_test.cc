// The pacing governor one lane at a time, on a ManualClock: which requests it
// never holds, the probe before any reading, the rate a lone lane gets, the
// keep held to the reset, and the share it measures beside other spenders.
#include <doctest/doctest.h>

#include <stdexcept>

#include "forgemeter/testing/manual_clock.h"
#include "pacing_clock.h"
#include "transport/admission/pacing_governor.h"

using namespace std::chrono_literals;
using forgemeter::Lane;
using forgemeter::ManualClock;
using forgemeter::UtcMillis;
using forgemeter::meter::Reading;
namespace td = forgemeter::transport_detail;

namespace {

const Lane kSweeper{"sweeper"};
const Lane kUsers{"users"};
constexpr UtcMillis kStart = fmtest::kPaceStart;
const auto kReset = std::chrono::floor<std::chrono::seconds>(kStart + 1h);

Reading reading(const ManualClock& c, std::uint64_t remaining, std::chrono::sys_seconds reset = kReset) {
  return {.remaining = remaining, .limit = 5000, .seen = c.now(), .reset = reset};
}

td::PacedLane sweeper(std::uint64_t keep = 0) { return {.lane = kSweeper, .installation = 101, .keep = keep}; }

}  // namespace

TEST_CASE("lanes not paced, other installations, other resources and unlabelled requests are never held") {
  ManualClock clock(kStart);
  td::PacingGovernor g({sweeper()}, clock);
  CHECK(g.paces(kSweeper));
  CHECK_FALSE(g.paces(kUsers));
  g.offer(101, "core", reading(clock, 0));  // spent: the sweeper waits for the reset
  CHECK_FALSE(g.admit(kSweeper, 101, "core").go);
  for (int i = 0; i < 100; ++i) {
    CHECK(g.admit(kUsers, 101, "core").go);
    CHECK(g.admit(kSweeper, 202, "core").go);
    CHECK(g.admit(kSweeper, 101, "search").go);
    CHECK(g.admit(kSweeper, 0, "core").go);
  }
}

TEST_CASE("before any reading a paced lane sends one probe per probe interval") {
  ManualClock clock(kStart);
  td::PacingGovernor g({sweeper()}, clock, {.probe_interval = 2s});
  CHECK(g.admit(kSweeper, 101, "core").go);
  const td::PaceVerdict held = g.admit(kSweeper, 101, "core");
  CHECK_FALSE(held.go);
  CHECK(held.retry_at == clock.steady_now() + 2s);
  clock.advance(2s);
  CHECK(g.admit(kSweeper, 101, "core").go);
}

TEST_CASE("alone, a lane gets (remaining - keep) / time to the reset; at the keep it waits for the reset") {
  ManualClock clock(kStart);
  td::PacingGovernor g({sweeper(1400)}, clock);
  g.offer(101, "core", reading(clock, 5000));  // 3600 to spend in 3600 s: one a second
  CHECK(g.admit(kSweeper, 101, "core").go);    // the saved-up token
  const td::PaceVerdict next = g.admit(kSweeper, 101, "core");
  CHECK_FALSE(next.go);
  CHECK(next.retry_at - clock.steady_now() == 1s);
  clock.advance(1s);
  CHECK(g.admit(kSweeper, 101, "core").go);

  clock.advance(10min);
  g.offer(101, "core", reading(clock, 1400));  // at the keep: nothing until the reset
  const td::PaceVerdict held = g.admit(kSweeper, 101, "core");
  CHECK_FALSE(held.go);
  CHECK(held.retry_at - clock.steady_now() <= 60s);  // asks again at least every max_retry
  clock.advance(std::chrono::sys_seconds(kReset) - clock.now());
  CHECK(g.admit(kSweeper, 101, "core").go);  // the reset passed: a probe of the new window
  CHECK_FALSE(g.admit(kSweeper, 101, "core").go);
}

TEST_CASE("right after a reset the probe of the new window goes at once, however recently the lane sent") {
  ManualClock clock(kStart);
  td::PacingGovernor g({sweeper()}, clock);
  const auto minute = std::chrono::floor<std::chrono::seconds>(kStart + 1min);
  g.offer(101, "core", reading(clock, 5000, minute));
  clock.advance(59900ms);
  CHECK(g.admit(kSweeper, 101, "core").go);  // 100 ms before the reset
  clock.advance(100ms);
  CHECK(g.admit(kSweeper, 101, "core").go);        // the reset: a probe, not a second's wait
  CHECK_FALSE(g.admit(kSweeper, 101, "core").go);  // then one per probe interval until a reading
}

TEST_CASE("readings of a window already over, and readings without a reset, change nothing") {
  ManualClock clock(kStart);
  td::PacingGovernor g({sweeper()}, clock);
  g.offer(101, "core", reading(clock, 0));
  g.offer(101, "core", reading(clock, 5000, kReset - 1h));                        // an older window's answer
  g.offer(101, "core", {.remaining = 5000, .limit = 5000, .seen = clock.now()});  // no reset
  CHECK_FALSE(g.admit(kSweeper, 101, "core").go);
}

TEST_CASE("a lane measures its share of what the fleet spent and paces to that share of the budget") {
  ManualClock clock(kStart);
  td::PacingGovernor g({sweeper()}, clock);
  CHECK_FALSE(g.share(kSweeper, 101, "core"));
  std::uint64_t remaining = 5000;
  g.offer(101, "core", reading(clock, remaining));
  REQUIRE(g.admit(kSweeper, 101, "core").go);
  g.offer(101, "core", reading(clock, --remaining));
  // The lane's step begins at the first reading it sees (4999). Over one step
  // (a 64th of the hour: 56.25 s) it sends 12 while the fleet spends 48: a
  // share of 12/48, plus one step's growth.
  CHECK(*g.share(kSweeper, 101, "core") == 1);  // until measured: as if alone
  for (int i = 0; i < 12; ++i) {
    clock.advance(5s);
    REQUIRE(g.admit(kSweeper, 101, "core").go);
    remaining -= 4;
    g.offer(101, "core", reading(clock, remaining));
  }
  CHECK(*g.share(kSweeper, 101, "core") == doctest::Approx(12.0 / 48 + 1.0 / 512).epsilon(1e-9));
}

TEST_CASE("an unusable lane or tuning is refused at construction") {
  ManualClock clock(kStart);
  CHECK_THROWS_AS(td::PacingGovernor({{.lane = Lane::other()}}, clock), std::invalid_argument);
  CHECK_THROWS_AS(td::PacingGovernor({{.lane = kSweeper, .keep_fraction = 1.5}}, clock), std::invalid_argument);
  CHECK_THROWS_AS(td::PacingGovernor({{.lane = kSweeper, .resource = ""}}, clock), std::invalid_argument);
  CHECK_THROWS_AS(td::PacingGovernor({sweeper()}, clock, {.steps_per_window = 0}), std::invalid_argument);
  CHECK_THROWS_AS(td::PacingGovernor({sweeper()}, clock, {.burst = 0.5}), std::invalid_argument);
}
