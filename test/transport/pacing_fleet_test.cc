// The pacing governor's proof on a simulated fleet (pacing_sim.h): replicas
// that know nothing of each other, each pacing its own lane from its own
// readings, spread one budget to its reset. The promise, in
// simulated time: nothing refused before the reset, at least 90 % of the
// limit spent, each quarter of the window between 15 % and 35 % of it.
#include <doctest/doctest.h>

#include "pacing_sim.h"

using namespace fmtest;

namespace {

void check_spread(const FleetPlan& plan, const FleetResult& r) {
  const double limit = static_cast<double>(plan.limit);
  for (std::size_t i = 0; i < r.windows.size(); ++i) {
    const WindowTally& w = r.windows[i];
    INFO("window " << i << ": spent " << w.spent << " of " << plan.limit << ", quarters " << w.quarters[0] << " "
                   << w.quarters[1] << " " << w.quarters[2] << " " << w.quarters[3]);
    CHECK(w.limited == 0);
    CHECK(static_cast<double>(w.spent) >= 0.9 * limit);
    for (std::uint64_t q : w.quarters) {
      CHECK(static_cast<double>(q) >= 0.15 * limit);
      CHECK(static_cast<double>(q) <= 0.35 * limit);
    }
  }
}

}  // namespace

TEST_CASE("3, 10 and 30 replicas with a demand of 3 limits spread an hourly budget to its reset") {
  for (int replicas : {3, 10, 30}) {
    CAPTURE(replicas);
    const FleetPlan plan{.replicas = replicas};
    check_spread(plan, FleetSim(plan).run());
  }
}

TEST_CASE("the same configuration spreads a per-minute window (GitLab's authenticated API: 2000 a minute)") {
  for (int replicas : {3, 10, 30}) {
    CAPTURE(replicas);
    const FleetPlan plan{.limit = 2000, .window = std::chrono::minutes(1), .replicas = replicas, .windows = 3};
    check_spread(plan, FleetSim(plan).run());
  }
}

TEST_CASE("a replica added at half-time does not push the fleet over") {
  for (int replicas : {3, 10, 30}) {
    CAPTURE(replicas);
    const FleetPlan plan{.replicas = replicas, .late_replicas = 1};
    check_spread(plan, FleetSim(plan).run());
  }
}

TEST_CASE("with a demand of half the limit no request waits, hourly or per minute") {
  for (int replicas : {1, 3, 10, 30}) {
    CAPTURE(replicas);
    const FleetResult hourly = FleetSim({.replicas = replicas, .demand = 0.5}).run();
    CHECK(hourly.sent == doctest::Approx(5000).epsilon(0.001));  // all the demand: 2500 a window, two windows
    CHECK(hourly.waited == 0);
    const FleetResult minute =
        FleetSim({.limit = 2000, .window = std::chrono::minutes(1), .replicas = replicas, .demand = 0.5}).run();
    CHECK(minute.sent == doctest::Approx(2000).epsilon(0.001));
    CHECK(minute.waited == 0);
  }
}

TEST_CASE("a demand a hundred times the budget (a backlog at startup) is spread the same") {
  for (int replicas : {3, 10, 30}) {
    CAPTURE(replicas);
    const FleetPlan plan{.replicas = replicas, .demand = 100};
    check_spread(plan, FleetSim(plan).run());
  }
}

TEST_CASE("a window of a loopback forge's size (200 in 10 s) spreads the same, also with 30 replicas") {
  // About 7 requests a replica a window at 30: the start-up estimate of a
  // lane's share and the pull back to the window's straight line keep each
  // reset's probes (one a replica) from front-loading the first quarter.
  for (int replicas : {3, 10, 30}) {
    CAPTURE(replicas);
    const FleetPlan plan{.limit = 200, .window = std::chrono::seconds(10), .replicas = replicas, .windows = 4};
    check_spread(plan, FleetSim(plan).run());
  }
}

TEST_CASE("an unpaced lane beside each replica's paced one: the fleet still spreads to the reset") {
  for (int replicas : {3, 10, 30}) {
    CAPTURE(replicas);
    const FleetPlan plan{
        .limit = 600, .window = std::chrono::seconds(4), .replicas = replicas, .windows = 4, .unpaced = 5};
    check_spread(plan, FleetSim(plan).run());
  }
}
