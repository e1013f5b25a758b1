// GitHub's secondary-limit triggers kept under by the Transport
// (rate_limits.secondary_limits), counted by the loopback forge: the
// requests it holds in flight at once, the writes in any "minute" (a span
// shortened to 1 s so the test takes seconds; the same code counts a real
// minute) and the spacing between writes.
#include <doctest/doctest.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "transport_rig.h"

using namespace fmtest;
using forgemeter::Request;
using forgemeter::SecondaryLimitOptions;
using forgemeter::UtcMillis;

namespace {

// The forge's arrival instants of installation `installation`'s requests with `method`, in order.
std::vector<UtcMillis> arrivals(tf::Forge& forge, std::uint64_t installation, std::string_view method) {
  std::vector<UtcMillis> at;
  for (const auto& r : forge.truth().requests())
    if (r.installation == installation && r.method == method) at.push_back(r.at);
  std::sort(at.begin(), at.end());
  return at;
}

}  // namespace

TEST_CASE("150 concurrent requests of one installation: at most 100 on the wire at once, by default") {
  Rig rig({.clock = &forgemeter::system_clock(), .threads = 160});
  auto t = rig.make_transport({});  // GitHub's values: max_in_flight 100
  const Request held{.url = rig.url("api.forge.test", "/hold/flight"), .installation = 7, .bearer = "inst-7"};
  std::vector<std::jthread> senders;
  std::atomic<int> ok{0};
  for (int i = 0; i < 150; ++i)
    senders.emplace_back([&] {
      if (t->perform(held).ok()) ++ok;
    });
  CHECK(rig.forge().await_held("flight", 100, 10s));
  // Margin: 100 held is reached within 10 s; the 101st, which must never
  // come while they are held, is given 300 ms (each waiter asks every 5 ms).
  CHECK_FALSE(rig.forge().await_held("flight", 101, 300ms));
  rig.forge().release("flight");
  senders.clear();
  CHECK(ok == 150);
  CHECK(rig.forge().secondary().peak_in_flight(7) == 100);
}

TEST_CASE("the in-flight limit off: all 150 are on the wire at once") {
  Rig rig({.clock = &forgemeter::system_clock(), .threads = 160});
  auto t = rig.make_transport({.rate_limits = {.secondary_limits = SecondaryLimitOptions::off()}});
  const Request held{.url = rig.url("api.forge.test", "/hold/all"), .installation = 7, .bearer = "inst-7"};
  std::vector<std::jthread> senders;
  for (int i = 0; i < 150; ++i) senders.emplace_back([&] { (void)t->perform(held); });
  CHECK(rig.forge().await_held("all", 150, 10s));
  rig.forge().release("all");
  senders.clear();
  CHECK(rig.forge().secondary().peak_in_flight(7) == 150);
}

TEST_CASE("a burst of 200 writes: at most 80 in any minute (a minute of 1 s here)") {
  Rig rig({.clock = &forgemeter::system_clock()});
  SecondaryLimitOptions limits;
  limits.minute = 1s;
  auto t = rig.make_transport({.rate_limits = {.secondary_limits = limits}});
  std::vector<std::jthread> senders;
  std::atomic<int> ok{0};
  for (int s = 0; s < 8; ++s)
    senders.emplace_back([&] {
      for (int i = 0; i < 25; ++i)
        if (t->perform(post(rig, 9)).ok()) ++ok;
    });
  senders.clear();
  CHECK(ok == 200);
  const std::vector<UtcMillis> at = arrivals(rig.forge(), 9, "POST");
  REQUIRE(at.size() == 200);
  // Margin: the Transport counts a write when it admits it; the forge when it
  // arrives, a few ms later on loopback (tens on a loaded machine): spans of
  // 1 s less 100 ms.
  std::size_t most = 0;
  for (std::size_t i = 0; i < at.size(); ++i) {
    const auto end = std::lower_bound(at.begin(), at.end(), at[i] + 900ms);
    const auto n = static_cast<std::size_t>(end - (at.begin() + static_cast<std::ptrdiff_t>(i)));
    most = std::max(most, n);
  }
  CHECK(most <= 80);
  CHECK(at.back() - at.front() >= 2s - 100ms);  // 80, 80, 40: three spans at least
  // Without write_spacing the writes of a span go at once.
  std::size_t close = 0;
  for (std::size_t i = 1; i < at.size(); ++i) close += at[i] - at[i - 1] < 25ms;
  CHECK(close > 100);
}

TEST_CASE("with write_spacing on, no two writes arrive much closer than it (250 ms here)") {
  Rig rig({.clock = &forgemeter::system_clock()});
  SecondaryLimitOptions limits;
  limits.write_spacing = 250ms;
  auto t = rig.make_transport({.rate_limits = {.secondary_limits = limits}});
  std::vector<std::jthread> senders;
  std::atomic<int> ok{0};
  for (int s = 0; s < 4; ++s)
    senders.emplace_back([&] {
      for (int i = 0; i < 2; ++i)
        if (t->perform(post(rig, 11)).ok()) ++ok;
    });
  senders.clear();
  CHECK(ok == 8);
  const std::vector<UtcMillis> at = arrivals(rig.forge(), 11, "POST");
  REQUIRE(at.size() == 8);
  // Margin: 100 ms for the jitter between admission and arrival (36 ms seen
  // on a loaded machine); without the spacing they arrive within a few ms.
  for (std::size_t i = 1; i < at.size(); ++i) CHECK(at[i] - at[i - 1] >= 150ms);
}
