// The pacing governor given answers out of order, on a ManualClock: a
// reading older than one already seen never raises what is left of the
// window, and an answer from a window already over never rewinds the window.
// Either would let a lane held at its keep go (scripts/mutants.d defends both).
#include <doctest/doctest.h>

#include "forgemeter/testing/manual_clock.h"
#include "pacing_clock.h"
#include "transport/admission/pacing_governor.h"

using namespace std::chrono_literals;
using forgemeter::ManualClock;
namespace td = forgemeter::transport_detail;

namespace {

const forgemeter::Lane kSweeper{"sweeper"};
constexpr forgemeter::UtcMillis kStart = fmtest::kPaceStart;
const auto kReset = std::chrono::floor<std::chrono::seconds>(kStart + 1h);  // an hour's window

// A governor pacing the sweeper with 1400 kept, and a reading at its keep:
// held until the reset. No reading names a limit, so the lane's share stays
// 1 (unmeasured): any reading above the keep would let it go at once.
struct AtKeep {
  ManualClock clock{kStart};
  td::PacingGovernor g{{{.lane = kSweeper, .installation = 101, .keep = 1400}}, clock};
  AtKeep() {
    g.offer(101, "core", {.remaining = 1400, .seen = clock.now(), .reset = kReset});
    REQUIRE_FALSE(g.admit(kSweeper, 101, "core").go);
  }
};

}  // namespace

TEST_CASE("a reading older than one already seen never raises what is left") {
  AtKeep k;
  k.clock.advance(5s);
  // Sent before the last one, answered after it: more was left then.
  k.g.offer(101, "core", {.remaining = 3000, .seen = k.clock.now() - 10s, .reset = kReset});
  for (int i = 0; i < 5; ++i) CHECK_FALSE(k.g.admit(kSweeper, 101, "core").go);
  const td::PaceVerdict v = k.g.admit(kSweeper, 101, "core");
  CHECK(v.due - k.clock.steady_now() == std::chrono::sys_seconds(kReset) - k.clock.now());  // still the reset
}

TEST_CASE("an answer from a window already over never rewinds the window") {
  AtKeep k;
  k.clock.advance(5s);
  // The window before this one ended a second before the test began; its
  // late answer (seen two seconds before that) holds more than this one's keep.
  const auto previous = std::chrono::floor<std::chrono::seconds>(kStart - 1s);
  k.g.offer(101, "core", {.remaining = 4000, .seen = kStart - 2s, .reset = previous});
  for (int i = 0; i < 5; ++i) CHECK_FALSE(k.g.admit(kSweeper, 101, "core").go);  // no probe of a "new" window
  const td::PaceVerdict v = k.g.admit(kSweeper, 101, "core");
  CHECK(v.due - k.clock.steady_now() == std::chrono::sys_seconds(kReset) - k.clock.now());
}

TEST_CASE("a budget that gave no usable reading is not paced until one comes") {
  ManualClock clock(kStart);
  td::PacingGovernor g({{.lane = kSweeper, .installation = 101, .keep = 1400}}, clock);
  CHECK(g.admit(kSweeper, 101, "core").go);        // the probe
  CHECK_FALSE(g.admit(kSweeper, 101, "core").go);  // one per probe interval while nothing is known
  g.unreadable(101, "core");                       // its answer carried no rate-limit header
  for (int i = 0; i < 100; ++i) CHECK(g.admit(kSweeper, 101, "core").go);
  REQUIRE(g.unpaced().size() == 1);
  CHECK(g.unpaced()[0].installation == 101);
  CHECK(g.unpaced()[0].resource == "core");
  g.unreadable(101, "search");  // not a paced budget: nothing kept
  CHECK(g.unpaced().size() == 1);
  g.offer(101, "core", {.remaining = 1400, .limit = 5000, .seen = clock.now(), .reset = kReset});  // a reading
  CHECK(g.unpaced().empty());
  CHECK_FALSE(g.admit(kSweeper, 101, "core").go);  // paced again: at its keep
  // A reading with a remaining but no reset cannot pace either.
  g.offer(202, "core", {.remaining = 10, .limit = 5000, .seen = clock.now()});
  td::PacingGovernor g2({{.lane = kSweeper, .installation = 0, .keep = 1400}}, clock);
  g2.offer(303, "core", {.remaining = 10, .limit = 5000, .seen = clock.now()});
  CHECK(g2.unpaced().size() == 1);
  for (int i = 0; i < 10; ++i) CHECK(g2.admit(kSweeper, 303, "core").go);
}
