// A secondary rate limit pauses its installation in the Transport: every later
// request of it, from any thread and lane, waits until the Retry-After
// instant (the default wait when absent) before it is sent — nothing reaches
// the forge inside the wait — while other installations go on. The Transport
// waits on the rig's ManualClock (the forge's too), so a wait ends when the
// test moves that clock.
#include <doctest/doctest.h>

#include <thread>

#include "transport_rig.h"

using namespace fmtest;
using forgemeter::AnswerClass;
using forgemeter::Lane;
using forgemeter::Request;
using forgemeter::Response;
using forgemeter::Transport;
using forgemeter::TransportErrc;

namespace {

Request get(Rig& rig, const std::string& path, std::uint64_t installation, std::optional<Lane> lane = {}) {
  return {.url = rig.url("api.forge.test", path),
          .lane = lane,
          .installation = installation,
          .bearer = "inst-" + std::to_string(installation)};
}

std::uint64_t received_from(Rig& rig, std::uint64_t installation) {
  std::uint64_t n = 0;
  for (const auto& r : rig.forge().truth().requests()) n += r.installation == installation ? 1 : 0;
  return n;
}

// `n` threads each perform `req` on `t`; their responses.
struct Senders {
  std::vector<Response> responses;
  std::vector<std::thread> threads;
  Senders(Transport& t, const Request& req, int n, Lane lane_of_odd) : responses(static_cast<std::size_t>(n)) {
    for (int i = 0; i < n; ++i)
      threads.emplace_back([&t, req, i, lane_of_odd, this] {
        Request r = req;
        if (i % 2) r.lane = lane_of_odd;  // the pause is the installation's, whatever the lane
        responses[static_cast<std::size_t>(i)] = t.perform(r);
      });
  }
  void join() {
    for (auto& th : threads) th.join();
    threads.clear();
  }
  ~Senders() { join(); }
};

}  // namespace

TEST_CASE("after a secondary limit with Retry-After, 4 threads of that installation wait it out; others go on") {
  Rig rig;
  auto t = rig.make_transport({.clock = &rig.clock(), .rate_limits = {.pause = {.max_wait = seconds(120)}}});
  auto limited = t->perform(get(rig, "/secondary/a?fail=1&retry_after=30", 101));
  CHECK(limited.status == 403);
  CHECK(limited.error.code == TransportErrc::secondary_rate_limited);  // retries are off: the caller is told
  REQUIRE(received_from(rig, 101) == 1);

  Senders senders(*t, get(rig, "/repos/o/r/pulls/1", 101), 4, Lane{"board"});
  REQUIRE(rig.clock().await_waiting(4, seconds(10)));
  CHECK(t->perform(get(rig, "/repos/o/r/pulls/2", 202)).status == 200);          // another installation is not paused
  CHECK(t->perform({.url = rig.url("api.forge.test", "/echo")}).status == 200);  // nor an unlabelled request
  rig.clock().advance(seconds(29));
  CHECK(received_from(rig, 101) == 1);  // nothing of 101 inside the wait
  rig.clock().advance(seconds(1));
  senders.join();
  for (const auto& r : senders.responses) CHECK(r.status == 200);
  CHECK(received_from(rig, 101) == 5);

  const auto c = rig.counted();
  CHECK(c.total == rig.forge().truth().total());  // a waiting request was not counted as sent
  CHECK(c.answered(rig.host("api.forge.test"), AnswerClass::secondary) == 1);
  CHECK(c.answered(rig.host("api.forge.test"), AnswerClass::ok2xx) == 6);
}

TEST_CASE("without Retry-After the pause is rate_limits.pause.wait (60 s by default)") {
  Rig rig;
  auto t = rig.make_transport({.clock = &rig.clock()});
  CHECK(t->perform(get(rig, "/status/429", 7)).error.code == TransportErrc::secondary_rate_limited);
  Senders senders(*t, get(rig, "/repos/o/r", 7), 2, Lane{"x"});
  REQUIRE(rig.clock().await_waiting(2, seconds(10)));
  rig.clock().advance(seconds(59));
  CHECK(received_from(rig, 7) == 1);
  rig.clock().advance(seconds(1));
  senders.join();
  CHECK(received_from(rig, 7) == 3);
  CHECK(rig.counted().answered(rig.host("api.forge.test"), AnswerClass::secondary) == 1);
}

TEST_CASE("a pause longer than pause.max_wait, or the request's timeout, fails at once saying until when") {
  Rig rig;
  auto t = rig.make_transport({.clock = &rig.clock(), .rate_limits = {.pause = {.max_wait = seconds(60)}}});
  REQUIRE(t->perform(get(rig, "/secondary/b?fail=1&retry_after=600", 9)).status == 403);
  auto res = t->perform(get(rig, "/repos/o/r", 9));
  CHECK(res.error.code == TransportErrc::installation_paused);
  CHECK(res.error.message.find("installation 9") != std::string::npos);
  CHECK(res.error.message.find("until 14:40:00Z") != std::string::npos);  // 14:30:00 + 600 s
  CHECK(res.hops.empty());

  REQUIRE(t->perform(get(rig, "/secondary/c?fail=1&retry_after=30", 10)).status == 403);
  Request short_timeout = get(rig, "/repos/o/r", 10);
  short_timeout.timeout = seconds(5);
  CHECK(t->perform(short_timeout).error.code == TransportErrc::installation_paused);
  Request short_total = get(rig, "/repos/o/r", 10);
  short_total.total_timeout = seconds(5);  // the pause (30 s) outlasts the whole request's time
  CHECK(t->perform(short_total).error.code == TransportErrc::installation_paused);
  CHECK(received_from(rig, 9) == 1);
  CHECK(received_from(rig, 10) == 1);
  CHECK(rig.counted().total == 2);
}

TEST_CASE("a stop request ends a pause wait; the request is cancelled, not sent") {
  Rig rig;
  auto t = rig.make_transport({.clock = &rig.clock()});
  REQUIRE(t->perform(get(rig, "/secondary/d?fail=1&retry_after=30", 11)).status == 403);
  std::stop_source stop;
  Response res;
  std::thread th([&] {
    Request r = get(rig, "/repos/o/r", 11);
    r.stop = stop.get_token();
    res = t->perform(r);
  });
  REQUIRE(rig.clock().await_waiting(1, seconds(10)));
  stop.request_stop();
  th.join();
  CHECK(res.error.code == TransportErrc::cancelled);
  CHECK(res.hops.empty());
  CHECK(received_from(rig, 11) == 1);
}

TEST_CASE("with retries on, the limited request itself is sent again once the pause is over") {
  Rig rig;
  auto t = rig.make_transport(
      {.clock = &rig.clock(),
       .rate_limits = {.retry = {.enabled = true, .max_retries = 1, .max_retry_after = seconds(60)}}});
  Response res;
  std::thread th([&] { res = t->perform(get(rig, "/secondary/e?fail=1&retry_after=20", 12)); });
  REQUIRE(rig.clock().await_waiting(1, seconds(10)));
  CHECK(received_from(rig, 12) == 1);
  rig.clock().advance(seconds(20));
  th.join();
  CHECK(res.status == 200);
  CHECK(res.hops.size() == 2);
  CHECK(received_from(rig, 12) == 2);
}

TEST_CASE("the lanes line holds how long each lane waited out a pause, stopped waits and retries included") {
  Rig rig;
  auto t = rig.make_transport({.clock = &rig.clock(), .rate_limits = {.pause = {.max_wait = seconds(120)}}});
  REQUIRE(t->perform(get(rig, "/secondary/w?fail=1&retry_after=30", 101)).status == 403);
  std::stop_source stop;
  Response stopped;
  std::thread quitter([&] {
    Request r = get(rig, "/repos/o/r/pulls/9", 101, Lane{"quits"});
    r.stop = stop.get_token();
    stopped = t->perform(r);
  });
  {
    Senders senders(*t, get(rig, "/repos/o/r/pulls/1", 101, Lane{"sweep"}), 4, Lane{"board"});
    REQUIRE(rig.clock().await_waiting(5, seconds(10)));
    rig.clock().advance(seconds(10));
    stop.request_stop();
    quitter.join();
    rig.clock().advance(seconds(20));
  }
  CHECK(stopped.error.code == TransportErrc::cancelled);
  CHECK(t->perform(get(rig, "/repos/o/r/pulls/2", 101, Lane{"late"})).status == 200);  // the pause is over: no wait

  // With retries on, the wait a secondary limit's Retry-After asks for is a pause too.
  auto retrying = rig.make_transport(
      {.clock = &rig.clock(),
       .rate_limits = {.retry = {.enabled = true, .max_retries = 1, .max_retry_after = seconds(60)}}});
  Response retried;
  std::thread th([&] { retried = retrying->perform(get(rig, "/secondary/x?fail=1&retry_after=20", 12, Lane{"r"})); });
  REQUIRE(rig.clock().await_waiting(1, seconds(10)));
  rig.clock().advance(seconds(20));
  th.join();
  CHECK(retried.status == 200);

  const auto c = rig.counted();
  REQUIRE(c.malformed.empty());
  const std::string host = rig.host("api.forge.test");
  auto paused = [&](const char* lane) {
    const auto it = c.lanes.find({host, lane});
    return it == c.lanes.end() ? 0 : it->second.waited_ms[static_cast<std::size_t>(forgemeter::WaitCause::pause)];
  };
  CHECK(paused("sweep") == 2 * 30'000u);  // two threads each, the whole 30 s (the clock moves only by hand)
  CHECK(paused("board") == 2 * 30'000u);
  CHECK(paused("quits") == 10'000u);  // stopped after 10 s: what it did wait
  CHECK(paused("late") == 0u);        // no lanes entry at all
  CHECK(c.lanes.count({host, "late"}) == 0);
  CHECK(paused("r") == 20'000u);
  CHECK(c.lanes.at({host, "sweep"}).installation == 101u);
  CHECK(c.total == rig.forge().truth().total());  // a wait is not a request
}
