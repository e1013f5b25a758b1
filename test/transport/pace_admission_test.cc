// What a paced request's admission decides before it waits, on the loopback
// forge and the rig's ManualClock (nothing moves it unless the test does): a
// pace past the request's timeout fails at once, and a budget whose answers
// carry no rate-limit headers (the Gitea-style host) is not paced at all but
// reported once in Transport::figures(). A request that waited instead would
// wait on the ManualClock for ever: each is performed on a thread of its own
// and awaited for a few seconds of real time.
#include <doctest/doctest.h>

#include <future>

#include "support/eventually.h"
#include "transport_rig.h"

using namespace fmtest;
using forgemeter::Lane;
using forgemeter::Request;
using forgemeter::Response;
using forgemeter::TransportErrc;

namespace {

const Lane kSweeper{"sweeper"};

// `r` performed on a thread of its own: its response, once it comes.
std::future<Response> perform_async(forgemeter::Transport& t, Request r) {
  return std::async(std::launch::async, [&t, r = std::move(r)] { return t.perform(r); });
}

bool ready(const std::future<Response>& f) { return f.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }

}  // namespace

TEST_CASE("a paced request whose pace is past its timeout fails at once, without waiting to ask again") {
  Rig rig;
  // keep 4999 of 5000: after the first request the budget is at its keep
  // until the reset, half an hour away; a step is 28 s, the timeout 60 s.
  auto t =
      rig.make_transport({.clock = &rig.clock(),
                          .rate_limits = {.pacing = {.lanes = {{.lane = kSweeper, .installation = 101, .keep = 4999}}},
                                          .secondary_limits = forgemeter::SecondaryLimitOptions::off()}});
  Request r = Rig::get_request(rig.url("api.forge.test", "/repos/o/r"), 101);
  r.lane = kSweeper;
  r.timeout = seconds(60);
  REQUIRE(t->perform(r).status == 200);  // the probe: the window is known now
  const auto began = rig.clock().steady_now();
  auto held = perform_async(*t, r);
  const bool at_once = eventually([&] { return ready(held); }, seconds(5));
  CHECK(at_once);
  if (!at_once) rig.clock().advance(hours(1));  // lets a waiting request end
  const Response res = held.get();
  CHECK(res.error.code == TransportErrc::paced);
  CHECK(res.error.message.find("past the request's timeout") != std::string::npos);
  CHECK(res.hops.empty());
  if (at_once) CHECK(rig.clock().steady_now() == began);  // it waited for nothing
  CHECK(rig.forge().truth().requests().size() == 1);

  // A max_wait shorter than the timeout decides it the same way (a proxy's
  // client is answered 429 rather than held past its own timeout).
  r.timeout = hours(2);
  r.max_wait = seconds(10);
  auto bounded = perform_async(*t, r);
  const bool bounded_at_once = eventually([&] { return ready(bounded); }, seconds(5));
  CHECK(bounded_at_once);
  if (!bounded_at_once) rig.clock().advance(hours(1));
  const Response b = bounded.get();
  CHECK(b.error.code == TransportErrc::paced);
  CHECK(b.error.message.find("past the request's max_wait") != std::string::npos);
  CHECK(rig.forge().truth().requests().size() == 1);
}

TEST_CASE("a paced budget whose answers carry no rate-limit headers is not paced, and is reported once") {
  Rig rig;
  auto t =
      rig.make_transport({.clock = &rig.clock(),
                          .rate_limits = {.pacing = {.lanes = {{.lane = kSweeper, .installation = 7, .keep = 10}}}}});
  Request r = Rig::get_request(rig.url(tf::kGiteaHost, "/repos/o/r"), 7);
  r.lane = kSweeper;
  REQUIRE(t->perform(r).status == 200);  // the probe: its answer says nothing of a budget
  const auto began = rig.clock().steady_now();
  auto rest = std::async(std::launch::async, [&] {
    int ok = 0;
    for (int i = 0; i < 20; ++i) ok += t->perform(r).status == 200 ? 1 : 0;
    return ok;
  });
  const bool at_once = eventually([&] { return rest.wait_for(seconds(0)) == std::future_status::ready; }, seconds(5));
  CHECK(at_once);  // paced, they would go one per probe_interval (1 s) of the ManualClock
  while (rest.wait_for(milliseconds(10)) != std::future_status::ready) rig.clock().advance(seconds(1));
  CHECK(rest.get() == 20);
  if (at_once) CHECK(rig.clock().steady_now() == began);
  const auto f = t->figures();
  REQUIRE(f.unpaced.size() == 1);  // once, however many answers said nothing
  CHECK(f.unpaced[0].installation == 7);
  CHECK(f.unpaced[0].resource == "core");
  CHECK(rig.forge().truth().requests().size() == 21);
}
