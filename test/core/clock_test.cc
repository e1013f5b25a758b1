#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "forgemeter/testing/manual_clock.h"

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
  {
    // Not before: at 9 s of 10 the waiter is still waiting, so a stop ends it
    // with false, however the threads are scheduled (a wake at 9 s returns true).
    std::stop_source stop;
    std::atomic<int> woke{0};
    std::jthread t([&] { woke = c.wait_until(c.steady_now() + 10s, stop.get_token()) ? 1 : -1; });
    REQUIRE(c.await_waiting(1, 5s));
    c.advance(9s);
    stop.request_stop();
    t.join();
    CHECK(woke.load() == -1);
  }
  {
    // When: time reaching the deadline returns true.
    std::atomic<int> woke{0};
    const auto deadline = c.steady_now() + 10s;
    std::jthread t([&] { woke = c.wait_until(deadline, {}) ? 1 : -1; });
    REQUIRE(c.await_waiting(1, 5s));
    c.advance(10s);
    t.join();
    CHECK(woke.load() == 1);
  }
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

TEST_CASE("manual clock: wall() keeps what now() truncates; set_wall takes a finer instant") {
  ManualClock c(UtcMillis(1'000ms));
  c.advance(1500us);
  CHECK(c.wall() == forgemeter::WallTime(1'001'500us));
  CHECK(c.now() == UtcMillis(1'001ms));
  c.set_wall(forgemeter::WallTime(7'250us));
  CHECK(c.wall() == forgemeter::WallTime(7'250us));
  CHECK(c.now() == UtcMillis(7ms));
}

TEST_CASE("manual clock: parked counts waiters with a deadline ahead and no stop; a hold hides them all") {
  ManualClock c(UtcMillis(0ms));
  std::stop_source stop;
  std::jthread a([&] { (void)c.wait_until(c.steady_now() + 10s, {}); });
  std::jthread b([&] { (void)c.wait_until(c.steady_now() + 1h, stop.get_token()); });
  REQUIRE(c.await_parked(2, 5s));
  CHECK(c.parked() == 2);
  CHECK(c.next_parked_in() == 10s);

  c.hold();
  CHECK(c.parked() == 0);
  CHECK_FALSE(c.await_parked(1, 20ms));
  CHECK(c.waiting() == 2);  // still in wait_until: waiting() does not look at holds
  c.unhold();
  CHECK(c.await_parked(2, 5s));

  stop.request_stop();  // a stopped waiter is not parked, even before it has left
  b.join();
  CHECK(c.parked() == 1);
  CHECK(c.next_parked_in() == 10s);
  c.advance(10s);
  a.join();
  CHECK(c.parked() == 0);
  CHECK(c.next_parked_in() == 0s);
}

TEST_CASE("manual clock: step jumps to the earliest parked deadline, capped by max; nullopt when nobody parks") {
  ManualClock c(UtcMillis(0ms));
  const auto t0 = c.steady_now();
  std::jthread a([&] { (void)c.wait_until(t0 + 3s, {}); });
  std::jthread b([&] { (void)c.wait_until(t0 + 5s, {}); });
  REQUIRE(c.step(2, 1s) == 1s);  // capped
  REQUIRE(c.step(2) == 2s);      // to a's deadline
  a.join();
  CHECK(c.steady_now() == t0 + 3s);
  CHECK_FALSE(c.step(2, 1h, 20ms).has_value());  // only b parks: nothing moves
  CHECK(c.steady_now() == t0 + 3s);
  REQUIRE(c.step(1) == 2s);
  b.join();
}

TEST_CASE("manual clock: run_for steps a sleeper through its wakeups and lands exactly at the end") {
  ManualClock c(UtcMillis(0ms));
  const auto t0 = c.steady_now();
  std::stop_source stop;
  std::atomic<int> wakeups{0};
  std::jthread sleeper([&] {
    auto next = t0;
    while (c.wait_until(next += 7s, stop.get_token())) ++wakeups;
  });
  REQUIRE(c.run_for(1min, 1));
  CHECK(c.steady_now() == t0 + 1min);
  CHECK(wakeups.load() == 8);  // 7 s, 14 s, ... 56 s
  CHECK(c.parked() == 1);      // quiet again: the sleeper waits for 63 s
  stop.request_stop();
  sleeper.join();
  CHECK_FALSE(c.run_for(1s, 1, 20ms));  // nobody left to park
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
