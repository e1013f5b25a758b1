// The loopback forge's other kinds of forge, by Host name: GitLab-style
// (RateLimit-* without the X- prefix, per-minute windows, 429 with or without
// headers) and Gitea-style (no rate-limit headers at all).
#include <doctest/doctest.h>

#include <algorithm>

#include "forge_calls.h"
#include "transport_rig.h"

using namespace fmtest;

TEST_CASE("forge: the GitLab host answers RateLimit-* per minute and 429 with Retry-After when spent") {
  Rig rig({.gitlab_limit = 3});
  const std::string url = rig.url(tf::kGitlabHost, "/repos/o/r");
  for (int i = 1; i <= 3; ++i) {
    CAPTURE(i);
    auto res = rig.probe_get(url, 51);
    REQUIRE(res.status == 200);
    CHECK(res.header("RateLimit-Limit") == "3");
    CHECK(res.header("RateLimit-Remaining") == std::to_string(3 - i));
    CHECK(res.header("RateLimit-Observed") == std::to_string(i));
    CHECK(res.header("RateLimit-Reset") == epoch_s(mid_hour() + minutes(1)));
    CHECK(res.header("RateLimit-ResetTime") == "Wed, 30 Sep 2026 14:31:00 GMT");
    // GitLab's spelling only: no X- headers, no resource.
    CHECK(rate_limit_headers(res) == std::vector<std::string>{"RateLimit-Limit", "RateLimit-Observed",
                                                              "RateLimit-Remaining", "RateLimit-Reset",
                                                              "RateLimit-ResetTime"});
  }
  auto spent = rig.probe_get(url, 51);
  CHECK(spent.status == 429);
  CHECK(spent.header("Retry-After") == "60");
  CHECK(spent.header("RateLimit-Remaining") == "0");
  CHECK_FALSE(spent.header("X-RateLimit-Remaining"));
  rig.clock().advance(seconds(14) + milliseconds(500));
  CHECK(rig.probe_get(url, 51).header("Retry-After") == "46");  // 45.5 s left, rounded up
  CHECK(rig.probe_get(url, 52).status == 200);                  // per user

  // ?no_headers=1: the same answers, without a single rate-limit header.
  auto bare = rig.probe_get(url + "?no_headers=1", 51);
  CHECK(bare.status == 429);
  CHECK(rate_limit_headers(bare).empty());
  CHECK(rate_limit_headers(rig.probe_get(url + "?no_headers=1", 53)).empty());

  rig.clock().advance(seconds(45) + milliseconds(500));  // 14:31:00
  auto fresh = rig.probe_get(url, 51);
  CHECK(fresh.status == 200);
  CHECK(fresh.header("RateLimit-Remaining") == "2");
  CHECK(rig.forge().budgets().lowest_remaining(51, "gitlab") == 0u);
  CHECK(rig.forge().truth().requests().back().resource == "gitlab");
}

TEST_CASE("forge: gitlab_429_without_headers leaves every rate-limit header off the 429s") {
  Rig rig({.gitlab_limit = 1, .gitlab_429_without_headers = true});
  const std::string url = rig.url(tf::kGitlabHost, "/repos/o/r");
  CHECK(rig.probe_get(url, 54).header("RateLimit-Remaining") == "0");
  auto spent = rig.probe_get(url, 54);
  CHECK(spent.status == 429);
  CHECK(rate_limit_headers(spent).empty());
  CHECK(spent.body == "Retry later\n");
}

TEST_CASE("forge: the Gitea host sends no rate-limit header and keeps no budget") {
  Rig rig({.installation_limit = 2});
  for (int i = 0; i < 5; ++i) {
    auto res = rig.probe_get(rig.url(tf::kGiteaHost, "/repos/o/r"), 55);
    CHECK(res.status == 200);
    CHECK(rate_limit_headers(res).empty());
  }
  CHECK(rig.forge().truth().by_installation_and_resource().at({55, ""}) == 5);
  CHECK(rig.forge().budgets().lowest_remaining(55, "core") == std::nullopt);
}

TEST_CASE("forge: secondary limits are GitHub's: the other hosts do not apply them") {
  Rig rig({.secondary = {.max_posts_per_minute = 1}});
  rig.forge().limit_secondary(56, seconds(600));
  CHECK(rig.probe_get(rig.url("api.forge.test", "/repos/o/r"), 56).status == 403);
  CHECK(rig.probe_get(rig.url(tf::kGitlabHost, "/repos/o/r"), 56).status == 200);
  CHECK(rig.probe_get(rig.url(tf::kGiteaHost, "/repos/o/r"), 56).status == 200);
  for (int i = 0; i < 3; ++i)
    CHECK(rig.probe(as(57, {.method = "POST", .url = rig.url(tf::kGitlabHost, "/echo")})).status == 200);
}

TEST_CASE("forge: resolve() maps the GitLab and Gitea names too, kHosts stays the chain's three") {
  Rig rig({.tls = true});
  const auto r = rig.forge().resolve();
  for (std::string_view h : tf::kOtherForgeHosts)
    for (int p : {rig.forge().port(), rig.forge().alt_port(), rig.forge().tls_port()})
      CHECK(std::count(r.begin(), r.end(), std::string(h) + ":" + std::to_string(p) + ":127.0.0.1") == 1);
  CHECK(r.size() == 15);
  CHECK(tf::kHosts.size() == 3);
  auto tls = rig.probe(as(58, {.url = rig.forge().tls_url(tf::kGitlabHost, "/repos/o/r")}));
  CHECK(tls.status == 200);
  CHECK(tls.header("RateLimit-Limit") == "600");
}
