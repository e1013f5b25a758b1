// A lane's reserve (forgemeter/rate_limits.h, LaneReserve): a background sweeper
// keeps off the last 5 of installation 101's core budget, which is left to the
// requests users wait on. Run against the loopback forge (src/testforge) with
// a budget of 10 an hour: the sweeper is held back after 5 requests. The
// forge is reached at 127.0.0.1, so the Transport needs no resolve entries.
//
//   build/<dir>/examples/example_lane_reserve
#include <forgemeter/meter.h>
#include <forgemeter/transport.h>

#include <cstdio>

#include "testforge/forge.h"

int main() {
  forgemeter::testforge::ForgeOptions budget;
  budget.installation_limit = 10;
  forgemeter::testforge::Forge forge(budget);
  forgemeter::Meter meter;

  const forgemeter::Lane sweeper{"sweeper"};
  // --- as in forgemeter/rate_limits.h ------------------------------------------
  forgemeter::Transport transport({.meter = &meter, .rate_limits = {
      .retry = {.enabled = true},
      .reserves = {{.lane = sweeper, .installation = 101, .keep = 5}}}});
  // -----------------------------------------------------------------------------

  int sent = 0;
  for (int i = 0; i < 8; ++i) {
    forgemeter::Response res = transport.perform(
        {.url = forge.url("127.0.0.1", "/repos/o/r/pulls/7"), .lane = sweeper, .installation = 101,
         .bearer = "inst-101"});
    if (res.error.code == forgemeter::TransportErrc::budget_reserved) {
      std::printf("after %d requests: %s\n", sent, res.error.message.c_str());
      break;
    }
    ++sent;
  }
  auto user = transport.perform({.url = forge.url("127.0.0.1", "/repos/o/r"), .installation = 101,
                                 .bearer = "inst-101"});
  std::printf("a request of another lane: HTTP %d\n", user.status);

  // --- as in docs/rate-limits.md: a reserve of 500 of the core budget ----------
  forgemeter::LaneReserve reserve{.lane = forgemeter::Lane{"sweeper"}, .installation = 101, .resource = "core", .keep = 500};
  // -----------------------------------------------------------------------------
  return sent == 5 && user.status == 200 && reserve.lane == sweeper ? 0 : 1;
}
