// A lane's reserve on an installation's budget: once this Transport's latest
// reading of that budget is at or under the reserve, the reserved lane's
// requests are refused before sending (counted as refused), other lanes go
// on, and the refusals stop when the reading's reset has passed.
#include <doctest/doctest.h>

#include "transport_rig.h"

using namespace fmtest;
using forgemeter::AnswerClass;
using forgemeter::Lane;
using forgemeter::LaneReserve;
using forgemeter::Request;
using forgemeter::TransportErrc;

namespace {

const Lane kSweeper{"sweeper"};
const Lane kUsers{"users"};

Request get(Rig& rig, std::uint64_t installation, Lane lane, const std::string& path = "/repos/o/r/pulls/1") {
  return {.url = rig.url("api.forge.test", path),
          .lane = lane,
          .installation = installation,
          .bearer = "inst-" + std::to_string(installation)};
}

}  // namespace

TEST_CASE(
    "the reserved lane is refused once the reading reaches the reserve; other lanes keep going; the reset ends it") {
  Rig rig;
  rig.forge().budgets().set_limit(101, 20);
  auto t = rig.make_transport(
      {.clock = &rig.clock(), .rate_limits = {.reserves = {{.lane = kSweeper, .installation = 101, .keep = 15}}}});
  for (int i = 0; i < 4; ++i) REQUIRE(t->perform(get(rig, 101, kSweeper)).ok());  // remaining 16
  REQUIRE(t->perform(get(rig, 101, kUsers)).ok());                                // remaining 15: the reserve
  auto refused = t->perform(get(rig, 101, kSweeper));
  CHECK(refused.error.code == TransportErrc::budget_reserved);
  CHECK(refused.hops.empty());
  CHECK(refused.error.message ==
        "lane sweeper holds back: installation 101's core budget read 15 of 20 at 14:30:00Z, within the lane's "
        "reserve of 15, until it resets at 15:00:00Z; request not sent");
  CHECK(t->perform(get(rig, 101, kUsers)).ok());                      // users spend the reserve
  CHECK(t->perform(get(rig, 202, kSweeper)).ok());                    // another installation is not reserved
  CHECK(t->perform(get(rig, 101, kSweeper, "/search/issues")).ok());  // one spending another bucket is not held
  CHECK(t->perform(get(rig, 101, kSweeper)).error.code == TransportErrc::budget_reserved);
  CHECK(rig.forge().truth().total() == 8);

  rig.clock().advance(minutes(30));  // 15:00:00: the reading's reset has passed (and the forge refilled)
  auto after = t->perform(get(rig, 101, kSweeper));
  CHECK(after.ok());
  CHECK(after.header("X-RateLimit-Remaining") == "19");
  const auto c = rig.counted();
  CHECK(c.answered(rig.host("api.forge.test"), AnswerClass::refused) == 2);
  CHECK(c.total == rig.forge().truth().total());
}

TEST_CASE("a reserve as a fraction of the limit; the larger form applies; any installation") {
  Rig rig;
  rig.forge().budgets().set_limit(5, 10);
  auto t = rig.make_transport(
      {.clock = &rig.clock(), .rate_limits = {.reserves = {{.lane = kSweeper, .keep = 2, .keep_fraction = 0.5}}}});
  for (int i = 0; i < 4; ++i) REQUIRE(t->perform(get(rig, 5, kSweeper)).ok());  // remaining 6 > 5
  REQUIRE(t->perform(get(rig, 5, kSweeper)).ok());                              // remaining 5
  auto refused = t->perform(get(rig, 5, kSweeper));
  CHECK(refused.error.code == TransportErrc::budget_reserved);
  CHECK(refused.error.message.find("reserve of 5") != std::string::npos);
}

TEST_CASE("unusable reserves are refused at construction") {
  Rig rig;
  CHECK_THROWS_AS(rig.make_transport({.rate_limits = {.reserves = {{.lane = kSweeper}}}}), std::invalid_argument);
  CHECK_THROWS_AS(rig.make_transport({.rate_limits = {.reserves = {{.lane = kSweeper, .keep_fraction = 1.5}}}}),
                  std::invalid_argument);
  CHECK_THROWS_AS(rig.make_transport({.rate_limits = {.reserves = {{.lane = kSweeper, .resource = "", .keep = 1}}}}),
                  std::invalid_argument);
}
