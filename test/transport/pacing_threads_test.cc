// The governor and the secondary limits asked from many threads at once (also
// in the TSan run): with time standing still, what they let go does not
// depend on which thread asks or in what order.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "forgemeter/testing/manual_clock.h"
#include "pacing_clock.h"
#include "transport/admission/pacing_governor.h"
#include "transport/admission/secondary_limits.h"

using forgemeter::Api;
using forgemeter::Lane;
using forgemeter::ManualClock;
using forgemeter::UtcMillis;
namespace td = forgemeter::transport_detail;

namespace {

constexpr UtcMillis kStart = fmtest::kPaceStart;
constexpr int kThreads = 8;
constexpr int kEach = 500;

template <class F>
void on_threads(F f) {
  std::vector<std::jthread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back([&f, t] { f(t); });
}

}  // namespace

TEST_CASE("one paced lane asked from 8 threads while readings arrive: with no time passing, exactly one goes") {
  ManualClock clock(kStart);
  const Lane sweeper{"sweeper"};
  td::PacingGovernor g({{.lane = sweeper, .installation = 101}}, clock);
  std::atomic<int> went{0};
  std::atomic<std::uint64_t> remaining{5000};
  const auto reset = std::chrono::floor<std::chrono::seconds>(kStart + std::chrono::hours(1));
  on_threads([&](int) {
    for (int i = 0; i < kEach; ++i) {
      if (g.admit(sweeper, 101, "core").go) ++went;
      g.offer(101, "core", {.remaining = --remaining, .limit = 5000, .seen = clock.now(), .reset = reset});
    }
  });
  CHECK(went == 1);  // the probe or the first token; nothing accrues while time stands still
}

TEST_CASE("8 threads reading one installation at once: exactly 900 points go in the minute") {
  ManualClock clock(kStart);
  td::SecondaryLimits limits({}, clock);
  const td::RequestKind get = td::kind_of("GET", Api::rest, "");
  std::atomic<int> went{0};
  on_threads([&](int) {
    for (int i = 0; i < kEach; ++i) {
      if (!limits.admit(101, get).go) continue;
      ++went;
      limits.release(101);
    }
  });
  CHECK(went == 900);
}
