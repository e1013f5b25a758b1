// Elected-lane gates: a gated lane whose gate reads false sends nothing.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "transport_rig.h"

using namespace fmtest;
using forgemeter::Lane;
using forgemeter::TransportErrc;

TEST_CASE("a request in a gated lane is refused while the gate reads false, and counted as refused") {
  Rig rig;
  const Lane lane{"merge-gate-sweeper"};
  std::atomic<bool> valid{false};
  rig.transport().gate_lane(lane, [&] { return valid.load(); });
  const std::string url = rig.url("api.forge.test", "/repos/o/r/pulls/1");

  auto refused = rig.transport().perform({.url = url, .lane = lane, .installation = 5, .bearer = "inst-5"});
  CHECK(refused.error.code == TransportErrc::lane_refused);
  CHECK(refused.error.message.find("merge-gate-sweeper") != std::string::npos);
  CHECK(refused.hops.empty());
  {
    forgemeter::LaneScope scope{lane};  // the thread's lane is gated the same way
    CHECK(rig.transport().perform({.url = url}).error.code == TransportErrc::lane_refused);
  }
  CHECK(rig.transport().perform({.url = url}).ok());  // another lane is not gated
  valid = true;
  CHECK(rig.transport().perform({.url = url, .lane = lane}).ok());
  valid = false;
  rig.transport().ungate_lane(lane);
  CHECK(rig.transport().perform({.url = url, .lane = lane}).ok());

  CHECK(rig.forge().truth().total() == 3);
  const auto c = rig.counted();
  CHECK(c.total == 3);  // refusals are not in N
  CHECK(c.answered(rig.host("api.forge.test"), forgemeter::AnswerClass::refused) == 2);
}

TEST_CASE("the gate is asked again before every hop") {
  Rig rig;
  const Lane lane{"sweeper"};
  std::atomic<int> asked{0};
  rig.transport().gate_lane(lane, [&] { return ++asked <= 2; });  // the term ends after two hops
  auto res = rig.transport().perform({.url = rig.url("api.forge.test", "/chain/3"), .lane = lane});
  CHECK(res.error.code == TransportErrc::lane_refused);
  CHECK(res.hops.size() == 2);
  CHECK(rig.forge().truth().total() == 2);
}

TEST_CASE("a gate that throws refuses; re-gating replaces the gate") {
  Rig rig;
  const Lane lane{"sweeper"};
  rig.transport().gate_lane(lane, []() -> bool { throw std::runtime_error("broken"); });
  CHECK(rig.transport().perform({.url = rig.url("api.forge.test", "/echo"), .lane = lane}).error.code ==
        TransportErrc::lane_refused);
  rig.transport().gate_lane(lane, [] { return true; });
  CHECK(rig.transport().perform({.url = rig.url("api.forge.test", "/echo"), .lane = lane}).ok());
  CHECK_THROWS_AS(rig.transport().gate_lane(lane, {}), std::invalid_argument);
}

TEST_CASE("a request that waited for its turn is refused if its lane's term ended meanwhile") {
  Rig rig;
  const Lane lane{"sweeper"};
  forgemeter::SecondaryLimitOptions limits;
  limits.write_spacing = std::chrono::seconds(10);
  auto t = rig.make_transport({.clock = &rig.clock(), .rate_limits = {.secondary_limits = limits}});
  std::atomic<bool> valid{true};
  t->gate_lane(lane, [&] { return valid.load(); });
  auto write = post(rig, 9);
  write.lane = lane;
  REQUIRE(t->perform(write).ok());
  forgemeter::Response res;
  std::thread second([&] { res = t->perform(write); });  // held by write_spacing for 10 s
  REQUIRE(rig.clock().await_waiting(1, std::chrono::seconds(10)));
  valid = false;  // the term ends while it waits
  rig.clock().advance(std::chrono::seconds(10));
  second.join();
  CHECK(res.error.code == TransportErrc::lane_refused);
  CHECK(res.hops.empty());
  CHECK(rig.forge().truth().total() == 1);
}
