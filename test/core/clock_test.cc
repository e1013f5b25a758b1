#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "forgemeter/clock.h"

using namespace std::chrono_literals;
using forgemeter::ManualClock;
using forgemeter::UtcMillis;

TEST_CASE("manual clock: advance moves wall and steady, set_wall steps wall only") {
  ManualClock c(UtcMillis(1'000'000ms));
  auto s0 = c.steady_now();
  c.advance(1500ms);
  CHECK(c.now() == UtcMillis(1'001'500ms));
  CHECK(c.steady_now() - s0 == 1500ms);
  c.set_wall(UtcMillis(5ms));
  CHECK(c.now() == UtcMillis(5ms));
  CHECK(c.steady_now() - s0 == 1500ms);
}

TEST_CASE("manual clock: sub-millisecond advances accumulate on the wall face") {
  ManualClock c(UtcMillis(0ms));
  for (int i = 0; i < 4; ++i) c.advance(250us);
  CHECK(c.now() == UtcMillis(1ms));
}

TEST_CASE("manual clock: a waiter wakes when time reaches its deadline, not before") {
  ManualClock c(UtcMillis(0ms));
  std::atomic<int> woke{0};
  std::jthread t([&] {
    bool reached = c.wait_until(c.steady_now() + 10s, {});
    woke = reached ? 1 : -1;
  });
  REQUIRE(c.await_waiting(1, 5s));
  c.advance(9s);
  // Still waiting: a waiter leaves wait_until only when time reaches its deadline.
  CHECK(c.await_waiting(1, 50ms));
  CHECK(woke.load() == 0);
  c.advance(1s);
  t.join();
  CHECK(woke.load() == 1);
}

TEST_CASE("manual clock: stop wakes a waiter with false") {
  ManualClock c(UtcMillis(0ms));
  std::stop_source stop;
  std::atomic<int> woke{0};
  std::jthread t([&] { woke = c.wait_until(c.steady_now() + 1h, stop.get_token()) ? 1 : -1; });
  REQUIRE(c.await_waiting(1, 5s));
  stop.request_stop();
  t.join();
  CHECK(woke.load() == -1);
}

TEST_CASE("system clock: a passed deadline returns true at once; stop returns false") {
  auto& c = forgemeter::system_clock();
  CHECK(c.wait_until(c.steady_now() - 1ms, {}));
  std::stop_source stop;
  stop.request_stop();
  CHECK_FALSE(c.wait_until(c.steady_now() + 1h, stop.get_token()));
  auto d = forgemeter::Deadline::after(c, 1h);
  CHECK_FALSE(d.passed());
  CHECK(d.remaining() > 59min);
}
