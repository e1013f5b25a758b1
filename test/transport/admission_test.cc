// The admission step's waits end cleanly: a pacing or secondary-limit wait
// that would outlast the request's timeout or total_timeout fails at once
// with TransportErrc::paced (nothing sent), Request::stop ends one with
// `cancelled`, and the lane the governor does not pace never waits. On the
// Transport's ManualClock: no wait happens unless the test moves time. A hop
// that was never held records no wait, however long admitting it took.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "transport_rig.h"

using namespace fmtest;
using forgemeter::Lane;
using forgemeter::Request;
using forgemeter::SecondaryLimitOptions;
using forgemeter::TransportErrc;

namespace {

const Lane kSweeper{"sweeper"};
const Lane kUsers{"users"};

Request get(Rig& rig, Lane lane) {
  return {.url = rig.url("api.forge.test", "/repos/o/r"), .lane = lane, .installation = 5, .bearer = "inst-5"};
}

// A clock on which every reading is 1 ms after the last (as on the demo's
// fast clock, where admitting a hop takes simulated milliseconds); a wait
// ends at once, its deadline reached.
class TickingClock final : public forgemeter::Clock {
 public:
  forgemeter::UtcMillis now() const override { return mid_hour() + tick(); }
  forgemeter::SteadyTime steady_now() const override { return forgemeter::SteadyTime{} + tick(); }
  bool wait_until(forgemeter::SteadyTime deadline, std::stop_token) const override {
    const auto to = std::chrono::duration_cast<std::chrono::milliseconds>(deadline.time_since_epoch()).count();
    for (auto at = ms_.load(); at < to && !ms_.compare_exchange_weak(at, to);) {
    }
    return true;
  }

 private:
  std::chrono::milliseconds tick() const { return std::chrono::milliseconds(++ms_); }
  mutable std::atomic<std::int64_t> ms_{0};
};

}  // namespace

TEST_CASE("a hop admitted at once records no wait, though time passed while admitting it") {
  Rig rig;
  TickingClock ticking;
  SecondaryLimitOptions limits;
  limits.write_spacing = std::chrono::seconds(1);
  auto t = rig.make_transport({.clock = &ticking, .rate_limits = {.secondary_limits = limits}});
  REQUIRE(t->perform(get(rig, kUsers)).ok());  // admitted at once: not held
  REQUIRE(t->perform(post(rig, 5)).ok());      // the first write: not held
  const auto before = rig.counted().lanes;
  for (const auto& [host_lane, e] : before) {
    INFO(host_lane.second);
    CHECK(e.waited_ms == decltype(e.waited_ms){});
  }
  REQUIRE(t->perform(post(rig, 5)).ok());  // held by write_spacing: a wait of about 1 s
  const auto after = rig.counted().lanes;
  std::uint64_t spaced = 0;
  for (const auto& [host_lane, e] : after)
    spaced += e.waited_ms[static_cast<std::size_t>(forgemeter::WaitCause::secondary)];
  CHECK(spaced >= 990);  // the spacing counts from the first write, a few ticks before this one asked
  CHECK(spaced < 1100);
}

TEST_CASE("a write held by write_spacing past its timeout or total_timeout is not sent: paced") {
  Rig rig;
  SecondaryLimitOptions limits;
  limits.write_spacing = std::chrono::seconds(10);
  auto t = rig.make_transport({.clock = &rig.clock(), .rate_limits = {.secondary_limits = limits}});
  REQUIRE(t->perform(post(rig, 9)).ok());
  Request soon = post(rig, 9);
  soon.timeout = std::chrono::seconds(1);
  const auto late = t->perform(soon);
  CHECK(late.error.code == TransportErrc::paced);
  CHECK(late.error.message ==
        "held by installation 9's write_spacing for 10.0 s, past the request's timeout: not sent");
  CHECK(late.hops.empty());
  Request total = post(rig, 9);
  total.total_timeout = std::chrono::seconds(5);
  CHECK(t->perform(total).error.code == TransportErrc::paced);
  CHECK(rig.forge().truth().total() == 1);
  rig.clock().advance(std::chrono::seconds(10));  // spaced: the next goes
  CHECK(t->perform(post(rig, 9)).ok());
}

TEST_CASE("Request::stop ends a secondary-limit wait: cancelled, nothing sent") {
  Rig rig;
  SecondaryLimitOptions limits;
  limits.write_spacing = std::chrono::seconds(10);
  auto t = rig.make_transport({.clock = &rig.clock(), .rate_limits = {.secondary_limits = limits}});
  REQUIRE(t->perform(post(rig, 9)).ok());
  std::stop_source stop;
  Request waiting = post(rig, 9);
  waiting.stop = stop.get_token();
  forgemeter::Response res;
  std::thread th([&] { res = t->perform(waiting); });
  REQUIRE(rig.clock().await_waiting(1, std::chrono::seconds(10)));
  stop.request_stop();
  th.join();
  CHECK(res.error.code == TransportErrc::cancelled);
  CHECK(rig.forge().truth().total() == 1);
}

TEST_CASE("a paced lane's second request within the probe interval waits; past its timeout it is paced") {
  Rig rig;
  auto t = rig.make_transport(
      {.clock = &rig.clock(), .rate_limits = {.pacing = {.lanes = {{.lane = kSweeper, .installation = 5}}}}});
  // The forge's readings are on the rig's clock too: the first answer is the
  // lane's first reading (its probe); the next waits for its pace.
  REQUIRE(t->perform(get(rig, kSweeper)).ok());
  Request next = get(rig, kSweeper);
  next.timeout = std::chrono::milliseconds(1);
  const auto res = t->perform(next);
  INFO(res.error.message);
  CHECK(res.error.code == TransportErrc::paced);
  CHECK(res.error.message.starts_with("lane sweeper would wait "));
  CHECK(
      res.error.message.ends_with(" for its pace on installation 5's core budget, past the request's timeout: "
                                  "not sent"));
  // Another lane of the same installation is never paced.
  CHECK(t->perform(get(rig, kUsers)).ok());
  CHECK(rig.forge().truth().total() == 2);
}
