// The loopback forge itself: buckets per resource on its own clock, headers on
// every answer, ground truth. (Secondary limits: forge_secondary_test.cc;
// GitLab- and Gitea-style hosts: forge_hosts_test.cc.)
#include <doctest/doctest.h>

#include "forge_calls.h"
#include "testforge/routes.h"
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
  auto gql =
      rig.transport().perform({.method = "POST", .url = rig.url("api.forge.test", "/graphql"), .bearer = "inst-8"});
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
  rig.transport().perform(
      {.url = rig.url("api.forge.test", "/echo"), .headers = {{"X-Probe", "1"}}, .lane = forgemeter::Lane{"a"}});
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

TEST_CASE("forge: search runs out at 30 a minute and refills at the next minute of the forge clock") {
  Rig rig;
  const std::string url = rig.url("api.forge.test", "/search/issues?q=is:pr");
  const std::string minute_end = epoch_s(mid_hour() + minutes(1));  // 14:31
  for (int i = 1; i <= 30; ++i) {
    CAPTURE(i);
    auto res = rig.get(url, 21);
    REQUIRE(res.status == 200);
    CHECK(res.body == R"({"total_count":0,"items":[]})");
    CHECK(res.header("X-RateLimit-Resource") == "search");
    CHECK(res.header("X-RateLimit-Limit") == "30");
    CHECK(res.header("X-RateLimit-Remaining") == std::to_string(30 - i));
    CHECK(res.header("X-RateLimit-Used") == std::to_string(i));
    CHECK(res.header("X-RateLimit-Reset") == minute_end);
  }
  auto spent = rig.get(url, 21);
  CHECK(spent.status == 403);
  CHECK(spent.header("X-RateLimit-Remaining") == "0");
  CHECK(spent.header("X-RateLimit-Resource") == "search");
  CHECK(spent.body.find("API rate limit exceeded") != std::string::npos);
  CHECK_FALSE(spent.header("Retry-After"));

  rig.clock().advance(seconds(59) + milliseconds(999));  // 14:30:59.999: the same window
  CHECK(rig.get(url, 21).status == 403);
  rig.clock().advance(milliseconds(1));  // 14:31:00: a new window
  auto fresh = rig.get(url, 21);
  CHECK(fresh.status == 200);
  CHECK(fresh.header("X-RateLimit-Remaining") == "29");
  CHECK(fresh.header("X-RateLimit-Reset") == epoch_s(mid_hour() + minutes(2)));

  // Other installations, and the same installation's core bucket, never noticed.
  CHECK(rig.get(url, 22).header("X-RateLimit-Remaining") == "29");
  CHECK(rig.forge().budgets().lowest_remaining(21, "core") == std::nullopt);
  CHECK(rig.forge().budgets().lowest_remaining(21, "search") == 0u);
  auto core = rig.get(rig.url("api.forge.test", "/repos/o/r"), 21);
  CHECK(core.header("X-RateLimit-Resource") == "core");
  CHECK(core.header("X-RateLimit-Remaining") == "4999");
  // The anonymous caller keeps its large limit in every bucket.
  CHECK(rig.get(url).header("X-RateLimit-Limit") == "10000000");
}

TEST_CASE("forge: /search/code is code_search, 10 a minute, a bucket apart from search") {
  Rig rig;
  for (int i = 1; i <= 10; ++i) {
    auto res = rig.get(rig.url("api.forge.test", "/search/code?q=x"), 23);
    REQUIRE(res.status == 200);
    CHECK(res.header("X-RateLimit-Resource") == "code_search");
    CHECK(res.header("X-RateLimit-Limit") == "10");
    CHECK(res.header("X-RateLimit-Remaining") == std::to_string(10 - i));
  }
  auto spent = rig.get(rig.url("api.forge.test", "/search/code?q=x"), 23);
  CHECK(spent.status == 403);
  CHECK(spent.header("X-RateLimit-Remaining") == "0");
  auto other = rig.get(rig.url("api.forge.test", "/search/repositories?q=x"), 23);
  CHECK(other.status == 200);
  CHECK(other.header("X-RateLimit-Resource") == "search");
  CHECK(other.header("X-RateLimit-Remaining") == "29");
}

TEST_CASE("forge: graphql counts points from X-Forge-Cost; core is a bucket apart") {
  Rig rig;
  auto seven = rig.transport().perform(graphql(rig, 24, "7"));
  REQUIRE(seven.status == 200);
  CHECK(seven.header("X-RateLimit-Resource") == "graphql");
  CHECK(seven.header("X-RateLimit-Limit") == "5000");
  CHECK(seven.header("X-RateLimit-Used") == "7");
  CHECK(seven.header("X-RateLimit-Remaining") == "4993");
  CHECK(seven.header("X-RateLimit-Reset") == epoch_s(mid_hour() + minutes(30)));  // hourly
  // Absent, zero or unreadable: one point.
  int used = 7;
  for (const char* cost : {"", "0", "-3", "abc", "2x"}) {
    CAPTURE(cost);
    auto res = rig.transport().perform(graphql(rig, 24, cost));
    CHECK(res.header("X-RateLimit-Used") == std::to_string(++used));
  }
  auto api = rig.transport().perform(graphql(rig, 24, "100", "/api/graphql"));
  CHECK(api.header("X-RateLimit-Used") == std::to_string(used + 100));
  // REST traffic of the same installation spends core only, and the other way round.
  auto core = rig.get(rig.url("api.forge.test", "/repos/o/r"), 24);
  CHECK(core.header("X-RateLimit-Resource") == "core");
  CHECK(core.header("X-RateLimit-Remaining") == "4999");
  CHECK(rig.forge().budgets().lowest_remaining(24, "graphql") == 5000u - used - 100);

  // A query costing more than is left is answered and empties the bucket; the
  // next is refused with remaining 0.
  rig.forge().budgets().set_limit(25, "graphql", 10);
  CHECK(rig.transport().perform(graphql(rig, 25, "4")).header("X-RateLimit-Remaining") == "6");
  auto big = rig.transport().perform(graphql(rig, 25, "50"));
  CHECK(big.status == 200);
  CHECK(big.header("X-RateLimit-Remaining") == "0");
  CHECK(big.header("X-RateLimit-Used") == "10");
  auto refused = rig.transport().perform(graphql(rig, 25, "1"));
  CHECK(refused.status == 200);  // GraphQL's refusal is in the body
  CHECK(refused.body.find(R"("type":"RATE_LIMITED")") != std::string::npos);
  CHECK(refused.header("X-RateLimit-Remaining") == "0");
  CHECK(rig.get(rig.url("api.forge.test", "/repos/o/r"), 25).status == 200);
  // set_limit(installation, limit) is core's alone.
  rig.forge().budgets().set_limit(26, 1);
  CHECK(rig.transport().perform(graphql(rig, 26, "")).header("X-RateLimit-Limit") == "5000");
  CHECK(rig.get(rig.url("api.forge.test", "/repos/o/r"), 26).header("X-RateLimit-Limit") == "1");
}

TEST_CASE("forge: limits come from ForgeOptions; a conditional GET answered 304 costs nothing") {
  Rig rig({.installation_limit = 100, .search_limit = 3, .code_search_limit = 2, .graphql_limit = 50});
  CHECK(rig.get(rig.url("api.forge.test", "/search/issues"), 5).header("X-RateLimit-Limit") == "3");
  CHECK(rig.get(rig.url("api.forge.test", "/search/code"), 5).header("X-RateLimit-Limit") == "2");
  CHECK(rig.transport().perform(graphql(rig, 5, "")).header("X-RateLimit-Limit") == "50");
  const std::string path = "/repos/o/r/pulls/1";
  auto first = rig.get(rig.url("api.forge.test", path), 5);
  CHECK(first.header("X-RateLimit-Remaining") == "99");
  auto hit = rig.transport().perform(as(5, {.url = rig.url("api.forge.test", path),
                                            .headers = {{"If-None-Match", rig.forge().etag(path, "Bearer inst-5")}}}));
  CHECK(hit.status == 304);
  CHECK(hit.header("X-RateLimit-Remaining") == "99");
}

TEST_CASE("forge: ground truth keeps each request's arrival on the forge clock and its bucket") {
  Rig rig;
  const auto t0 = rig.clock().now();
  rig.get(rig.url("api.forge.test", "/repos/o/r"), 27);
  rig.clock().advance(seconds(10));
  const auto t1 = rig.clock().now();
  rig.get(rig.url("api.forge.test", "/search/issues"), 27);
  rig.transport().perform(graphql(rig, 27, "3"));
  rig.get(rig.url("api.forge.test", "/repos/o/r"), 28);
  rig.clock().advance(milliseconds(1));
  rig.get(rig.url("api.forge.test", "/search/code"), 27);

  const auto kept = rig.forge().truth().requests();
  REQUIRE(kept.size() == 5);
  CHECK(kept[0].at == t0);
  CHECK(kept[0].resource == "core");
  CHECK(kept[1].at == t1);
  CHECK(kept[1].resource == "search");
  CHECK(kept[2].resource == "graphql");
  CHECK(kept[4].at == t1 + milliseconds(1));
  CHECK(kept[4].resource == "code_search");

  auto& truth = rig.forge().truth();
  CHECK(truth.received(27, t0, t1) == 1);
  CHECK(truth.received(27, t0 + milliseconds(1), t1) == 0);  // nothing of 27 arrived in (t0, t1)
  CHECK(truth.received(27, t1, t1 + milliseconds(1)) == 2);  // [t1, t1 + 1ms): the end is open
  CHECK(truth.received(27, t0, t1 + seconds(1)) == 4);
  CHECK(truth.received(28, t0, t1 + seconds(1)) == 1);
  CHECK(truth.received(27, t1, t0) == 0);
  const auto by = truth.by_installation_and_resource();
  CHECK(by.at({27, "core"}) == 1);
  CHECK(by.at({27, "graphql"}) == 1);
  CHECK(by.at({28, "core"}) == 1);
}
