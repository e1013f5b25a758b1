// What an answer says about its budget beyond the X-RateLimit-* headers, on
// the loopback forge: GitHub's GraphQL says a spent budget in a 200's body
// (`errors[].type` RATE_LIMITED, counted `limited` as the octokit throttling
// plugin treats it); GitLab names its resource in RateLimit-Name and gives
// the reset as an HTTP date in RateLimit-ResetTime.
#include <doctest/doctest.h>

#include "forge_calls.h"

using namespace fmtest;
using forgemeter::AnswerClass;
using forgemeter::Api;

namespace {

// The budget entries of `installation` on `host`.
std::vector<forgemeter::BudgetEntry> budgets_of(const Counted& c, const std::string& host, std::uint64_t installation) {
  std::vector<forgemeter::BudgetEntry> out;
  for (const auto& b : c.budgets)
    if (b.host == host && b.installation == installation) out.push_back(b);
  return out;
}

}  // namespace

TEST_CASE("a GraphQL 200 whose errors say RATE_LIMITED is a spent budget: class limited") {
  Rig rig({.graphql_limit = 2});
  REQUIRE(rig.transport().perform(graphql(rig, 41, "1")).status == 200);
  REQUIRE(rig.transport().perform(graphql(rig, 41, "1")).status == 200);
  const auto spent = rig.transport().perform(graphql(rig, 41, "1"));
  REQUIRE(spent.status == 200);
  REQUIRE(spent.body.find("RATE_LIMITED") != std::string::npos);
  const auto c = rig.counted();
  const std::string host = rig.host("api.forge.test");
  CHECK(c.answered(host, AnswerClass::limited) == 1);
  CHECK(c.answered(host, AnswerClass::ok2xx) == 2);
  CHECK(c.total == 3);
  CHECK(c.lowest(41) == 0);
}

TEST_CASE("streamed to Request::on_body, a GraphQL RATE_LIMITED 200 is still class limited") {
  Rig rig({.graphql_limit = 1});
  std::string got;
  auto streamed = [&rig, &got] {
    auto req = graphql(rig, 41, "1");
    req.on_body = [&got](const forgemeter::BodyChunk& c) {
      got.append(c.bytes);
      return true;
    };
    return rig.transport().perform(req);
  };
  REQUIRE(streamed().status == 200);
  got.clear();
  const auto spent = streamed();
  REQUIRE(spent.status == 200);
  CHECK(spent.body.empty());
  CHECK(got.find("RATE_LIMITED") != std::string::npos);  // the sink had it; the meter read its prefix
  const auto c = rig.counted();
  const std::string host = rig.host("api.forge.test");
  CHECK(c.answered(host, AnswerClass::limited) == 1);
  CHECK(c.answered(host, AnswerClass::ok2xx) == 1);
}

TEST_CASE("GitLab: RateLimit-Name names the budget's resource") {
  Rig rig;
  const auto res = rig.get(rig.url(tf::kGitlabHost, "/repos/o/r?ratelimit_name=throttle_authenticated_api"), 42);
  REQUIRE(res.status == 200);
  REQUIRE(res.header("RateLimit-Name") == "throttle_authenticated_api");
  rig.get(rig.url(tf::kGitlabHost, "/repos/o/r"), 43);  // no name: the API's default
  const auto c = rig.counted();
  const auto named = budgets_of(c, rig.host(tf::kGitlabHost), 42);
  REQUIRE(named.size() == 1);
  CHECK(named[0].resource == "throttle_authenticated_api");
  CHECK(named[0].remaining == 599);
  const auto plain = budgets_of(c, rig.host(tf::kGitlabHost), 43);
  REQUIRE(plain.size() == 1);
  CHECK(plain[0].resource == "");
}

TEST_CASE("GitLab: RateLimit-ResetTime (an HTTP date) is read when RateLimit-Reset is absent") {
  Rig rig;  // 14:30:00 on the forge's clock: its minute ends at 14:31:00
  const auto res = rig.get(rig.url(tf::kGitlabHost, "/repos/o/r?no_reset=1"), 44);
  REQUIRE(res.status == 200);
  REQUIRE_FALSE(res.header("RateLimit-Reset"));
  REQUIRE(res.header("RateLimit-ResetTime") == "Wed, 30 Sep 2026 14:31:00 GMT");
  rig.get(rig.url(tf::kGitlabHost, "/repos/o/r"), 45);  // both: RateLimit-Reset read, the same instant
  const auto c = rig.counted();
  for (std::uint64_t installation : {44, 45}) {
    CAPTURE(installation);
    const auto b = budgets_of(c, rig.host(tf::kGitlabHost), installation);
    REQUIRE(b.size() == 1);
    CHECK(b[0].resets == forgemeter::TimeOfDay{14 * 3600 + 31 * 60});
  }
}
