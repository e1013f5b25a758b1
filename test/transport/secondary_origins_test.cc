// Two forges that number an installation alike are two budgets: the
// secondary-limit windows and a secondary limit's pause are kept per origin
// and installation. On the loopback forge's two GitHub-style hosts and the
// rig's ManualClock: a request the other forge's window or pause would hold
// has a timeout of 5 s, so a wrong hold fails at once instead of waiting.
#include <doctest/doctest.h>

#include "transport_rig.h"

using namespace fmtest;
using forgemeter::Request;
using forgemeter::TransportErrc;

namespace {

Request get(Rig& rig, std::string_view host, const std::string& path) {
  Request r = Rig::get_request(rig.url(host, path), 101);
  r.timeout = seconds(5);
  return r;
}

}  // namespace

TEST_CASE("a full points window of one forge's installation 101 does not hold another forge's 101") {
  Rig rig;
  forgemeter::SecondaryLimitOptions limits = forgemeter::SecondaryLimitOptions::off();
  limits.rest_points_per_minute = 5;  // five reads a minute
  auto t = rig.make_transport({.clock = &rig.clock(), .rate_limits = {.secondary_limits = limits}});
  for (int i = 0; i < 5; ++i) REQUIRE(t->perform(get(rig, "api.forge.test", "/repos/o/r")).status == 200);
  const auto held = t->perform(get(rig, "api.forge.test", "/repos/o/r"));  // its window is full for a minute
  CHECK(held.error.code == TransportErrc::paced);
  const auto other = t->perform(get(rig, "uploads.forge.test", "/repos/o/r"));
  CHECK(other.ok());
  CHECK(other.status == 200);
}

TEST_CASE("a secondary limit pauses installation 101 on its forge only") {
  Rig rig;
  auto t = rig.make_transport(
      {.clock = &rig.clock(), .rate_limits = {.secondary_limits = forgemeter::SecondaryLimitOptions::off()}});
  REQUIRE(t->perform(get(rig, "api.forge.test", "/status/403?retry_after=30")).status == 403);
  CHECK(t->perform(get(rig, "api.forge.test", "/repos/o/r")).error.code == TransportErrc::installation_paused);
  const auto other = t->perform(get(rig, "uploads.forge.test", "/repos/o/r"));
  CHECK(other.ok());
  CHECK(other.status == 200);
}
