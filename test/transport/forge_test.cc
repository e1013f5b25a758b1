// The loopback forge itself: budgets on its own clock, headers on every answer.
#include <doctest/doctest.h>

#include "transport_rig.h"

using namespace fmtest;

TEST_CASE("forge: every answer carries the rate-limit headers of the caller's budget") {
  Rig rig;
  int expected_remaining = 5000;
  for (const char* path : {"/repos/o/r", "/nowhere", "/status/500", "/loop"}) {
    CAPTURE(path);
    auto t = rig.make_transport({.max_redirects = 0});
    auto res = t->perform({.url = rig.url("api.forge.test", path), .bearer = "inst-8"});
    --expected_remaining;
    CHECK(res.header("X-RateLimit-Limit") == "5000");
    CHECK(res.header("X-RateLimit-Remaining") == std::to_string(expected_remaining));
    CHECK(res.header("X-RateLimit-Used") == std::to_string(5000 - expected_remaining));
    CHECK(res.header("X-RateLimit-Resource") == "core");
    // Resets at the top of the forge clock's next hour (mid_hour() is 14:30).
    const auto reset = duration_cast<seconds>((mid_hour() + minutes(30)).time_since_epoch()).count();
    CHECK(res.header("X-RateLimit-Reset") == std::to_string(reset));
  }
  auto anon = rig.get(rig.url("api.forge.test", "/repos/o/r"));
  CHECK(anon.header("X-RateLimit-Limit") == "10000000");
  auto gql = rig.transport().perform({.method = "POST", .url = rig.url("api.forge.test", "/graphql"), .bearer = "inst-8"});
  CHECK(gql.header("X-RateLimit-Resource") == "graphql");
  CHECK(gql.header("X-RateLimit-Remaining") == "4999");
}

TEST_CASE("forge: a spent budget refills at the top of the forge clock's hour") {
  Rig rig;
  rig.forge().budgets().set_limit(4, 2);
  CHECK(rig.get(rig.url("api.forge.test", "/repos/a"), 4).status == 200);
  CHECK(rig.get(rig.url("api.forge.test", "/repos/a"), 4).status == 200);
  CHECK(rig.get(rig.url("api.forge.test", "/repos/a"), 4).status == 403);
  rig.clock().advance(minutes(29) + seconds(59));  // 14:59:59: still spent
  CHECK(rig.get(rig.url("api.forge.test", "/repos/a"), 4).status == 403);
  rig.clock().advance(seconds(1));  // 15:00:00
  auto res = rig.get(rig.url("api.forge.test", "/repos/a"), 4);
  CHECK(res.status == 200);
  CHECK(res.header("X-RateLimit-Remaining") == "1");
}

TEST_CASE("forge: counts by Host and lane, and keeps the headers each request arrived with") {
  Rig rig({.record_limit = 2}, {.lane_header = std::string(tf::kLaneHeader)});
  rig.transport().perform({.url = rig.url("api.forge.test", "/echo"), .headers = {{"X-Probe", "1"}},
                           .lane = forgemeter::Lane{"a"}});
  rig.transport().perform({.url = rig.url("uploads.forge.test", "/echo"), .lane = forgemeter::Lane{"b"}});
  rig.transport().perform({.url = rig.url("uploads.forge.test", "/echo")});
  auto& truth = rig.forge().truth();
  CHECK(truth.total() == 3);
  CHECK(truth.by_host().at(rig.host("uploads.forge.test")) == 2);
  CHECK(truth.by_host_and_lane().at({rig.host("api.forge.test"), "a"}) == 1);
  CHECK(truth.by_lane().at("other") == 1);
  const auto kept = truth.requests();
  REQUIRE(kept.size() == 2);  // the record limit
  CHECK(kept[0].header("x-probe") == "1");
  CHECK(kept[0].target == "/echo");
  truth.clear();
  CHECK(truth.total() == 0);
}
