// A ManualClock (forgemeter/testing/manual_clock.h) stepping three workers that sleep on it:
// each polls every 90, 91 or 92 s of simulated time. A step waits until all
// three are parked, then jumps to the earliest deadline; run_for() steps from
// wakeup to wakeup and returns once they sleep again, so what the workers did
// is settled when main() looks — no real time passes, no sleep is guessed.
//
//   build/<dir>/examples/example_manual_clock
#include <forgemeter/testing/manual_clock.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stop_token>
#include <thread>
#include <vector>

using namespace std::chrono_literals;

[[noreturn]] void fail() {
  std::fputs("the workers did not all park\n", stderr);
  std::exit(1);
}

int main() {
  forgemeter::ManualClock clock{forgemeter::UtcMillis{}};
  const forgemeter::SteadyTime start = clock.steady_now();
  std::atomic<int> polls{0};
  std::vector<std::jthread> workers;
  for (int w = 0; w < 3; ++w)
    workers.emplace_back([&clock, &polls, w](std::stop_token stop) {
      forgemeter::SteadyTime next = clock.steady_now();
      while (clock.wait_until(next += 90s + w * 1s, stop)) ++polls;
    });

  // --- as in forgemeter/clock.h -------------------------------------------------
  if (!clock.step(3)) fail();           // all 3 workers parked: jump to the earliest deadline
  if (!clock.run_for(10min, 3)) fail(); // keep stepping until 10 minutes have passed
  // -----------------------------------------------------------------------------

  const auto simulated = std::chrono::duration_cast<std::chrono::seconds>(clock.steady_now() - start);
  std::printf("%lld s simulated, %d polls\n", static_cast<long long>(simulated.count()), polls.load());
  return simulated == 690s && polls.load() == 21 ? 0 : 1;  // 7 polls each by 690 s
}
