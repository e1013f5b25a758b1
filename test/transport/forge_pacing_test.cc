// Pacing's promise on the loopback forge, in real time on windows of 4 s:
// replicas that know nothing of each other, each a Transport with a Meter of
// its own pacing one lane, share one installation's budget of L = 600 a
// window with a demand of 3 L. Counted by the forge (arrivals in each quarter
// of each window). The promise: 15-35 % of L a quarter, >= 90 % of L a
// window, nothing refused; the governor's own figures in simulated time
// (pacing_fleet_test.cc) are 22-33 % a quarter. At L = 600 a window, 30
// replicas send about 19 requests each a window (the model wants about 20:
// docs/rate-limits.md#assumptions-and-where-it-fails).
#include <doctest/doctest.h>

#include <string>

#include "paced_fleet.h"

using namespace fmtest;
using namespace std::chrono_literals;
using forgemeter::UtcMillis;

namespace {

constexpr std::chrono::milliseconds kWindow = 4s;
constexpr std::uint64_t kLimit = 600;
constexpr int kWindows = 2;

tf::ForgeOptions forge_options() {
  return {.core_window = std::chrono::duration_cast<std::chrono::seconds>(kWindow), .threads = 96};
}

// Each measured window of `installation` from `start`: what the forge received, by quarter.
void check_spread(tf::Forge& forge, std::uint64_t installation, UtcMillis start) {
  const double limit = static_cast<double>(kLimit);
  for (int w = 0; w < kWindows; ++w) {
    std::uint64_t q[4];
    std::uint64_t spent = 0;
    for (int i = 0; i < 4; ++i) {
      const UtcMillis from = start + kWindow * w + kWindow * i / 4;
      q[i] = forge.truth().received(installation, from, from + kWindow / 4);
      spent += q[i];
    }
    const std::string figures = "installation " + std::to_string(installation) + " window " + std::to_string(w) +
                                ": spent " + std::to_string(spent) + " of " + std::to_string(kLimit) + ", quarters " +
                                std::to_string(q[0]) + " " + std::to_string(q[1]) + " " + std::to_string(q[2]) + " " +
                                std::to_string(q[3]);
    MESSAGE(figures);
    INFO(figures);
    CHECK(static_cast<double>(spent) >= 0.9 * limit);
    CHECK(spent <= kLimit);
    for (std::uint64_t x : q) {
      CHECK(static_cast<double>(x) >= 0.15 * limit);
      CHECK(static_cast<double>(x) <= 0.35 * limit);
    }
  }
}

void check_answers(const PacedFleet& fleet, forgemeter::Lane lane) {
  const LaneTally t = fleet.tally(lane);
  INFO("lane " << lane.name() << ": ok " << t.ok << ", limited " << t.limited << ", other " << t.other);
  CHECK(t.limited == 0);
  CHECK(t.other == 0);
}

}  // namespace

TEST_CASE("3, 10 and 30 replicas, one configuration, spread a demand of 3 L to the reset; never limited") {
  tf::Forge forge(forge_options());
  const UtcMillis start = next_window_start(kWindow, 300ms);
  const UtcMillis end = start + kWindow * kWindows;
  PacedFleet three(forge, {.installation = 303, .replicas = 3}, kLimit, start, kWindow, end);
  PacedFleet ten(forge, {.installation = 310, .replicas = 10}, kLimit, start, kWindow, end);
  PacedFleet thirty(forge, {.installation = 330, .replicas = 30}, kLimit, start, kWindow, end);
  three.join();
  ten.join();
  thirty.join();
  for (const PacedFleet* f : {&three, &ten, &thirty}) check_answers(*f, kPacedLane);
  check_spread(forge, 303, start);
  check_spread(forge, 310, start);
  check_spread(forge, 330, start);
}

TEST_CASE("a replica added at half-time; a demand of L/2 never waits; an unpaced lane never waits beside a paced one") {
  tf::Forge forge(forge_options());
  const UtcMillis start = next_window_start(kWindow, 300ms);
  const UtcMillis end = start + kWindow * kWindows;
  PacedFleet late(forge, {.installation = 311, .replicas = 10, .late = 1}, kLimit, start, kWindow, end);
  PacedFleet half(forge, {.installation = 320, .replicas = 10, .demand = 0.5}, kLimit, start, kWindow, end);
  // Beside the paced lane, each replica's unpaced lane sends 5 a window (50 of the fleet's).
  PacedFleet mixed(forge, {.installation = 340, .replicas = 10, .unpaced = 5}, kLimit, start, kWindow, end);
  late.join();
  half.join();
  mixed.join();
  check_answers(late, kPacedLane);
  check_spread(forge, 311, start);

  check_answers(half, kPacedLane);
  const LaneTally h = half.tally(kPacedLane);
  MESSAGE("L/2: " << h.ok << " sent, waited " << h.paced_ms << " ms for pacing");
  CHECK(h.ok >= kLimit / 2 * kWindows - 10);  // all its demand (less the last requests cut by the end)
  CHECK(h.paced_ms == 0);

  check_answers(mixed, kPacedLane);
  check_answers(mixed, kUnpacedLane);
  check_spread(forge, 340, start);
  const LaneTally paced = mixed.tally(kPacedLane);
  const LaneTally unpaced = mixed.tally(kUnpacedLane);
  MESSAGE("beside: paced lane waited " << paced.paced_ms << " ms, unpaced " << unpaced.paced_ms << " ms");
  CHECK(paced.paced_ms > 0);  // the governor did hold the paced lane …
  CHECK(unpaced.ok >= 5 * 10 * kWindows - 10);
  CHECK(unpaced.paced_ms == 0);  // … and never the unpaced one
  CHECK(unpaced.held_ms == 0);
}
