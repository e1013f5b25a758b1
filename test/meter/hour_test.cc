// When lines are written: turns, notes, idle gaps, flushes, late and early records.
#include <doctest/doctest.h>

#include <limits>

#include "meter_fixture.h"

using namespace forgemeter;
using namespace fmtest;

namespace {
const Lane kSweeper{"sweeper"};
}  // namespace

TEST_CASE("the hour turns at the first event of a later hour; a mid-hour start says `counted from`") {
  Rig rig(at(14, 37));
  rig.request("api.github.com", kSweeper, at(14, 40), 101);
  rig.request("api.github.com", kSweeper, at(14, 50), 101);
  rig.request("api.github.com", Lane::other(), at(14, 59, 59, 999));
  CHECK(rig.take().empty());  // no timer: nothing is written until an event of a later hour
  rig.request("api.github.com", kSweeper, at(15, 0, 0, 0));
  CHECK(rig.take() == Lines{"forge HTTP: 3 requests in the hour ending 2026-09-30T15:00Z (counted from 14:37:00Z)" + D +
                            "api.github.com rest installation 101 sweeper=2, api.github.com rest other=1"});
  rig.clock.set_wall(at(15, 20, 30));
  rig.meter->flush();
  CHECK(rig.take() == Lines{"forge HTTP: 1 requests in the hour ending 2026-09-30T16:00Z (until 15:20:30Z, stopping)" +
                            D + "api.github.com rest sweeper=1"});
}

TEST_CASE("a start on the hour is a whole hour; start and stop in one hour give both notes") {
  SUBCASE("whole") {
    Rig rig(at(14));
    rig.request("h", kSweeper, at(14, 10));
    rig.request("h", kSweeper, at(15, 10));
    CHECK(rig.take() == Lines{"forge HTTP: 1 requests in the hour ending 2026-09-30T15:00Z" + D + "h rest sweeper=1"});
  }
  SUBCASE("both") {
    Rig rig(at(14, 37));
    rig.request("h", kSweeper, at(14, 40));
    rig.clock.set_wall(at(14, 50, 30));
    rig.meter->flush();
    CHECK(rig.take() == Lines{"forge HTTP: 1 requests in the hour ending 2026-09-30T15:00Z (counted from 14:37:00Z, "
                              "until 14:50:30Z, stopping)" +
                              D + "h rest sweeper=1"});
  }
}

TEST_CASE("idle gaps: empty hours write nothing, a finished hour is written late under its own date") {
  Rig rig(at(14));
  rig.request("h", kSweeper, at(14, 40));
  rig.request("h", kSweeper, at(17, 5));  // 15:00-17:00 had no traffic
  CHECK(rig.take() == Lines{"forge HTTP: 1 requests in the hour ending 2026-09-30T15:00Z" + D + "h rest sweeper=1"});
  rig.clock.set_wall(at(19, 0, 1));  // the stop comes after the counted hour ended: it is whole
  rig.meter->flush();
  CHECK(rig.take() == Lines{"forge HTTP: 1 requests in the hour ending 2026-09-30T18:00Z" + D + "h rest sweeper=1"});
  rig.request("h", kSweeper, at(23, 59));
  rig.request("h", kSweeper, at(24, 0, 1));  // across midnight: the next day's date
  CHECK(rig.take() == Lines{"forge HTTP: 1 requests in the hour ending 2026-10-01T00:00Z" + D + "h rest sweeper=1"});
}

TEST_CASE("flush: a second flush writes nothing; counting after a stop says `counted from` the stop") {
  Rig rig(at(14));
  rig.request("h", kSweeper, at(14, 5));
  rig.clock.set_wall(at(14, 10));
  rig.meter->flush();
  CHECK(rig.take().size() == 1);
  rig.meter->flush();
  CHECK(rig.take().empty());
  rig.request("h", kSweeper, at(14, 20));
  rig.clock.set_wall(at(14, 25));
  rig.meter.reset();  // the destructor flushes
  CHECK(rig.take() == Lines{"forge HTTP: 1 requests in the hour ending 2026-09-30T15:00Z (counted from 14:10:00Z, "
                            "until 14:25:00Z, stopping)" +
                            D + "h rest sweeper=1"});
}

TEST_CASE("the destructor flushes; a flush after it wrote writes nothing more") {
  Rig rig(at(14));
  rig.request("h", kSweeper, at(14, 5));
  rig.clock.set_wall(at(14, 30));
  rig.meter->flush();
  rig.meter.reset();
  CHECK(rig.take().size() == 1);
}

TEST_CASE("records stamped before the hour being counted count in the current hour") {
  Rig rig(at(14));
  rig.request("h", kSweeper, at(15, 1));   // turns to 15:00 (14:00 was empty)
  rig.request("h", kSweeper, at(14, 59));  // raced the turn
  rig.request("h", kSweeper, at(9, 0));    // a clock stepped back
  rig.request("h", kSweeper, at(16, 0));
  CHECK(rig.take() == Lines{"forge HTTP: 3 requests in the hour ending 2026-09-30T16:00Z" + D + "h rest sweeper=3"});
}

TEST_CASE("a late answer is a reading of the hour it arrives in, and turns the hour itself") {
  Rig rig(at(14));
  const RequestKey key{.host = "api.github.com", .installation = 101, .lane = kSweeper};
  rig.meter->record_request(key, at(14, 59, 59));
  AnswerRecord answer{.key = key, .seen = at(15, 0, 1), .status = 200};
  answer.headers.offer("X-RateLimit-Remaining", "4999");
  rig.meter->record_answer(answer);
  CHECK(rig.take() == Lines{"forge HTTP: 1 requests in the hour ending 2026-09-30T15:00Z" + D +
                            "api.github.com rest installation 101 sweeper=1"});
  rig.clock.set_wall(at(15, 30));
  rig.meter->flush();
  CHECK(rig.take() ==
        Lines{"forge rate limit: lowest remaining in the hour ending 2026-09-30T16:00Z (until 15:30:00Z, stopping)" +
                  D + "api.github.com rest installation 101: 4999 at 15:00:01Z",
              "forge HTTP answers: in the hour ending 2026-09-30T16:00Z (until 15:30:00Z, stopping)" + D +
                  "api.github.com rest 2xx=1"});
}

TEST_CASE("refused requests: on the answers line, not in N, and they turn the hour") {
  Rig rig(at(14));
  const RequestKey key{.host = "api.github.com", .lane = kSweeper};
  rig.meter->record_request(key, at(14, 1));
  rig.meter->record_refused(key, at(14, 2));
  rig.meter->record_refused(key, at(14, 3));
  CHECK(rig.take().empty());
  rig.meter->record_refused(key, at(15, 3));
  CHECK(rig.take() ==
        Lines{"forge HTTP: 1 requests in the hour ending 2026-09-30T15:00Z" + D + "api.github.com rest sweeper=1",
              "forge HTTP answers: in the hour ending 2026-09-30T15:00Z" + D + "api.github.com rest refused=2"});
  rig.clock.set_wall(at(17));
  rig.meter->flush();
  CHECK(rig.take() ==
        Lines{"forge HTTP answers: in the hour ending 2026-09-30T16:00Z" + D + "api.github.com rest refused=1"});
}

TEST_CASE("a cache's coalesced and revalidated: on the answers line after refused, not in N, and on the lanes line") {
  Rig rig(at(14));
  const RequestKey key{.host = "api.github.com", .installation = 101, .lane = kSweeper};
  rig.meter->record_request(key, at(14, 1));
  rig.meter->record_answer({.key = key, .seen = at(14, 1), .status = 304});
  rig.meter->record_revalidated(key, at(14, 1));
  rig.meter->record_coalesced(key, at(14, 2));
  rig.meter->record_coalesced(key, at(14, 2));
  rig.meter->record_refused(key, at(14, 3));
  const std::string text = rig.meter->prometheus();
  CHECK(text.find(R"(class="coalesced"} 2)") != std::string::npos);
  CHECK(text.find(R"(class="revalidated"} 1)") != std::string::npos);
  rig.clock.set_wall(at(15));
  rig.meter->flush();
  CHECK(rig.take() == Lines{"forge HTTP: 1 requests in the hour ending 2026-09-30T15:00Z" + D +
                                "api.github.com rest installation 101 sweeper=1",
                            "forge HTTP lanes: in the hour ending 2026-09-30T15:00Z" + D +
                                "api.github.com rest installation 101 sweeper revalidated=1 coalesced=2",
                            "forge HTTP answers: in the hour ending 2026-09-30T15:00Z" + D +
                                "api.github.com rest 304=1 refused=1 coalesced=2 revalidated=1"});
}

TEST_CASE("record_wait: summed per lane and cause on the lanes line, before the answers line; not in N") {
  Rig rig(at(14));
  const RequestKey key{.host = "api.github.com", .installation = 101, .lane = kSweeper};
  const RequestKey other{.host = "API.GitHub.com", .api = Api::graphql};
  using std::chrono::milliseconds;
  rig.meter->record_wait(key, WaitCause::pause, milliseconds(1500), at(14, 1));
  rig.meter->record_wait(key, WaitCause::pause, milliseconds(500), at(14, 2));
  rig.meter->record_wait(key, WaitCause::pacing, milliseconds(7), at(14, 2));
  rig.meter->record_wait(key, WaitCause::secondary, milliseconds(1000), at(14, 3));
  rig.meter->record_wait(other, WaitCause::pacing, milliseconds(42), at(14, 3));
  rig.meter->record_wait(other, WaitCause::pause, milliseconds(0), at(14, 3));   // nothing waited: not recorded
  rig.meter->record_wait(other, WaitCause::pause, milliseconds(-5), at(14, 3));  // nor a negative wait
  rig.meter->record_coalesced(other, at(14, 4));
  const std::string text = rig.meter->prometheus();
  CAPTURE(text);
  CHECK(text.find("# TYPE forgemeter_wait_seconds_total counter\n") != std::string::npos);
  CHECK(text.find(
            R"(forgemeter_wait_seconds_total{host="api.github.com",api="rest",lane="sweeper",cause="pause"} 2.000)") !=
        std::string::npos);
  CHECK(text.find(
            R"(forgemeter_wait_seconds_total{host="api.github.com",api="rest",lane="sweeper",cause="pacing"} 0.007)") !=
        std::string::npos);
  CHECK(
      text.find(
          R"(forgemeter_wait_seconds_total{host="api.github.com",api="rest",lane="sweeper",cause="secondary"} 1.000)") !=
      std::string::npos);
  CHECK(text.find(
            R"(forgemeter_cache_saved_total{host="api.github.com",api="graphql",lane="other",kind="coalesced"} 1)") !=
        std::string::npos);
  rig.clock.set_wall(at(15));
  rig.meter->flush();
  CHECK(rig.take() ==
        Lines{"forge HTTP lanes: in the hour ending 2026-09-30T15:00Z" + D +
                  "api.github.com graphql other coalesced=1 paced=42ms, "
                  "api.github.com rest installation 101 sweeper paused=2000ms paced=7ms spaced=1000ms",
              "forge HTTP answers: in the hour ending 2026-09-30T15:00Z" + D + "api.github.com graphql coalesced=1"});
}

TEST_CASE("record_wait: the waits never wrap; a wait alone writes only the lanes line") {
  Rig rig(at(14));
  const RequestKey key{.host = "h", .lane = kSweeper};
  const auto most = std::chrono::milliseconds::max();
  rig.meter->record_wait(key, WaitCause::pause, most, at(14, 1));
  rig.meter->record_wait(key, WaitCause::pause, most, at(14, 1));
  rig.meter->record_wait(key, WaitCause::pause, most, at(14, 1));
  rig.clock.set_wall(at(15));
  rig.meter->flush();
  CHECK(rig.take() == Lines{"forge HTTP lanes: in the hour ending 2026-09-30T15:00Z" + D + "h rest sweeper paused=" +
                            std::to_string(std::numeric_limits<std::uint64_t>::max()) + "ms"});
}

TEST_CASE("ordering: count descending, then host, api, lane (`other` first), installation (none first)") {
  Rig rig(at(14));
  const Lane a{"a"}, b{"b"};
  auto n = [&](std::string_view host, Lane lane, std::uint64_t inst, Api api, int times) {
    for (int i = 0; i < times; ++i) rig.request(host, lane, at(14, 10), inst, api);
  };
  n("b.example", a, 0, Api::rest, 5);
  n("z.example", b, 0, Api::rest, 9);
  n("a.example", b, 7, Api::rest, 2);
  n("a.example", b, 0, Api::rest, 2);
  n("a.example", a, 3, Api::rest, 2);
  n("a.example", Lane::other(), 9, Api::rest, 2);
  n("a.example", b, 0, Api::graphql, 2);
  n("a.example:8443", a, 0, Api::rest, 2);
  n("0.example", b, 0, Api::rest, 1);
  rig.request("h", a, at(15));
  CHECK(rig.take() ==
        Lines{"forge HTTP: 27 requests in the hour ending 2026-09-30T15:00Z" + D +
              "z.example rest b=9, b.example rest a=5, a.example graphql b=2, a.example rest installation 9 other=2, "
              "a.example rest installation 3 a=2, a.example rest b=2, a.example rest installation 7 b=2, "
              "a.example:8443 rest a=2, 0.example rest b=1"});
}

TEST_CASE("lanes: given per request or by scope reach the line; invalid names are refused where given") {
  Rig rig(at(14));
  {
    LaneScope outer{Lane{"outer"}};
    LaneScope inner{Lane{"inner"}};
    rig.meter->record_request({.host = "h", .lane = current_lane()}, at(14, 1));
  }
  rig.meter->record_request({.host = "h", .lane = current_lane()}, at(14, 2));
  rig.request("h", Lane{"outer"}, at(15));
  CHECK(rig.take() ==
        Lines{"forge HTTP: 2 requests in the hour ending 2026-09-30T15:00Z" + D + "h rest other=1, h rest inner=1"});
  for (std::string_view bad : {"", "other", "Upper", "-x", "a b", "a=b", "a,b"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(Lane{bad}, std::invalid_argument);
  }
}
