// GitHub's GraphQL says a spent budget in the body of a 200: the Transport's
// Response says so as it does for a 403 with remaining 0 — not ok,
// TransportErrc::budget_exhausted, never retried — on the loopback forge.
#include <doctest/doctest.h>

#include "forge_calls.h"

using namespace fmtest;
using forgemeter::TransportErrc;

TEST_CASE("a GraphQL 200 whose errors say RATE_LIMITED is budget_exhausted, not a success, and not retried") {
  Rig rig({.graphql_limit = 1});
  auto t = rig.make_transport({.rate_limits = {.retry = {.enabled = true, .max_retries = 3}}});
  const auto first = t->perform(graphql(rig, 41, "1"));
  CHECK(first.ok());
  const auto spent = t->perform(graphql(rig, 41, "1"));
  CHECK(spent.status == 200);
  CHECK_FALSE(spent.ok());
  CHECK(spent.error.code == TransportErrc::budget_exhausted);
  CHECK(spent.error.message.find("RATE_LIMITED") != std::string::npos);
  CHECK(spent.body.find("RATE_LIMITED") != std::string::npos);  // the answer is still there to read
  CHECK(spent.hops.size() == 1);
  CHECK(rig.forge().truth().requests().size() == 2);
}
