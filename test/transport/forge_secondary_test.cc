// The loopback forge's secondary rate limits: tripped by rule (too many at
// once, too many POSTs a minute) or by hand; answered 403/429 with or without
// Retry-After while the primary budget stays healthy and unspent; ending on
// time on the forge clock.
#include <doctest/doctest.h>

#include <thread>

#include "forge_calls.h"
#include "transport_rig.h"

using namespace fmtest;

namespace {

void check_secondary(const forgemeter::Response& res, int status, std::optional<std::string> retry_after,
                     const std::string& remaining) {
  CHECK(res.status == status);
  CHECK(res.body == tf::kSecondaryBody);
  CHECK(res.header("Retry-After") == retry_after);
  // The primary budget is healthy and shown as it is: the limited request spent nothing.
  CHECK(res.header("X-RateLimit-Remaining") == remaining);
  CHECK(res.header("X-RateLimit-Resource") == "core");
}

}  // namespace

TEST_CASE("forge: a secondary limit set by hand, with Retry-After, ends on time and spends nothing") {
  Rig rig;
  const std::string url = rig.url("api.forge.test", "/repos/o/r");
  REQUIRE(rig.probe_get(url, 31).status == 200);  // core: 4999 left
  rig.clock().advance(seconds(1));
  const auto t0 = rig.clock().now();
  rig.forge().limit_secondary(31, seconds(90));
  CHECK(rig.forge().secondary_limited_until(31) == t0 + seconds(90));
  check_secondary(rig.probe_get(url, 31), 403, "90", "4999");
  CHECK(rig.probe_get(url, 32).status == 200);  // another installation: not limited

  rig.clock().advance(seconds(30));
  check_secondary(rig.probe_get(url, 31), 403, "60", "4999");
  rig.clock().advance(seconds(59) + milliseconds(500));  // 0.5 s left: rounded up
  check_secondary(rig.probe_get(url, 31), 403, "1", "4999");
  // Every kind of request of the installation is limited, whatever its bucket.
  auto search = rig.probe_get(rig.url("api.forge.test", "/search/issues"), 31);
  CHECK(search.status == 403);
  CHECK(search.header("X-RateLimit-Resource") == "search");
  CHECK(search.header("X-RateLimit-Remaining") == "30");
  rig.clock().advance(milliseconds(499));  // t0 + 89.999 s
  CHECK(rig.probe_get(url, 31).status == 403);

  rig.clock().advance(milliseconds(1));  // t0 + 90 s: over
  CHECK_FALSE(rig.forge().secondary_limited_until(31));
  auto after = rig.probe_get(url, 31);
  CHECK(after.status == 200);
  CHECK(after.header("X-RateLimit-Remaining") == "4998");  // the five limited ones spent nothing
  // ... but each reached the forge and was counted.
  CHECK(rig.forge().truth().received(31, t0, t0 + seconds(90)) == 5);
  CHECK(rig.forge().truth().by_installation_and_resource().at({31, "core"}) == 6);
}

TEST_CASE("forge: a secondary limit set by hand without Retry-After, as 429") {
  Rig rig;
  const std::string url = rig.url("api.forge.test", "/repos/o/r");
  rig.forge().limit_secondary(33, seconds(60), false, 429);
  check_secondary(rig.probe_get(url, 33), 429, std::nullopt, "5000");
  rig.clock().advance(seconds(60));
  CHECK(rig.probe_get(url, 33).status == 200);
}

TEST_CASE("forge: the POST-rate rule trips on the POST after the allowed ones, with Retry-After") {
  Rig rig({.secondary = {.max_posts_per_minute = 3, .retry_after_s = 30}});
  const auto post = as(34, {.method = "POST", .url = rig.url("api.forge.test", "/echo"), .body = "x"});
  const std::string get = rig.url("api.forge.test", "/repos/o/r");
  for (int i = 0; i < 3; ++i) REQUIRE(rig.probe(post).status == 200);
  CHECK(rig.probe_get(get, 34).status == 200);  // GETs do not count
  const auto t0 = rig.clock().now();
  check_secondary(rig.probe(post), 403, "30", "4996");
  check_secondary(rig.probe_get(get, 34), 403, "30", "4996");  // the whole installation is limited
  CHECK(rig.probe(as(35, post)).status == 200);                // another installation is not
  CHECK(rig.forge().secondary_limited_until(34) == t0 + seconds(30));

  rig.clock().advance(seconds(30));  // 14:30:30: the window is over, the minute is not
  CHECK(rig.probe_get(get, 34).status == 200);
  check_secondary(rig.probe(post), 403, "30", "4995");  // still 3 POSTs this minute
  rig.clock().advance(seconds(30));                     // 14:31:00: a new minute, and the window is over
  CHECK(rig.probe(post).status == 200);
}

TEST_CASE("forge: a rule tripped without Retry-After limits for the penalty, then ends") {
  Rig rig({.secondary = {.max_posts_per_minute = 1, .retry_after_s = std::nullopt, .penalty_s = 120, .status = 429}});
  const auto post = as(36, {.method = "POST", .url = rig.url("api.forge.test", "/graphql"), .body = "{}"});
  REQUIRE(rig.probe(post).status == 200);
  auto limited = rig.probe(post);
  CHECK(limited.status == 429);
  CHECK(limited.body == tf::kSecondaryBody);
  CHECK_FALSE(limited.header("Retry-After"));
  CHECK(limited.header("X-RateLimit-Resource") == "graphql");
  CHECK(limited.header("X-RateLimit-Remaining") == "4999");
  rig.clock().advance(seconds(119) + milliseconds(999));
  CHECK(rig.probe_get(rig.url("api.forge.test", "/repos/o/r"), 36).status == 429);
  rig.clock().advance(milliseconds(1));
  CHECK(rig.probe_get(rig.url("api.forge.test", "/repos/o/r"), 36).status == 200);
}

TEST_CASE("forge: the in-flight rule trips on a request arriving while N of its installation are handled") {
  Rig rig({.secondary = {.max_in_flight = 2}});
  const std::string held = rig.url("api.forge.test", "/hold/inflight");
  std::vector<forgemeter::Response> answers(2);
  std::vector<std::thread> threads;
  for (auto& a : answers) threads.emplace_back([&rig, &a, held] { a = rig.probe_get(held, 37); });
  REQUIRE(rig.forge().await_held("inflight", 2, seconds(10)));
  CHECK(rig.forge().secondary().in_flight(37) == 2);

  check_secondary(rig.probe_get(rig.url("api.forge.test", "/repos/o/r"), 37), 403, "60", "4998");
  CHECK(rig.probe_get(rig.url("api.forge.test", "/repos/o/r"), 38).status == 200);  // per installation
  rig.forge().release("inflight");
  for (auto& t : threads) t.join();
  for (const auto& a : answers) CHECK(a.status == 200);  // admitted before it tripped
  CHECK(rig.forge().secondary().in_flight(37) == 0);     // done before their answers were written

  CHECK(rig.probe_get(rig.url("api.forge.test", "/repos/o/r"), 37).status == 403);  // the window goes on
  rig.clock().advance(seconds(60));
  CHECK(rig.probe_get(rig.url("api.forge.test", "/repos/o/r"), 37).status == 200);
  CHECK(rig.probe_get(rig.url("api.forge.test", "/repos/o/r"), 37).status == 200);  // one at a time is fine
}

TEST_CASE("forge: the /secondary/<key> route still answers its own secondary limit") {
  Rig rig;
  auto res = rig.probe_get(rig.url("api.forge.test", "/secondary/k?fail=1&retry_after=5"), 39);
  CHECK(res.status == 403);
  CHECK(res.header("Retry-After") == "5");
  CHECK(res.body.find("secondary rate limit") != std::string::npos);
  CHECK(rig.probe_get(rig.url("api.forge.test", "/secondary/k?fail=1"), 39).status == 200);
}
