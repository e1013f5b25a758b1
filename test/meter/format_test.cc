// The line grammar, byte-exact, through format_line().
#include <doctest/doctest.h>

#include <limits>

#include "forgemeter/line_view.h"
#include "meter_fixture.h"

using namespace forgemeter;
using namespace fmtest;

namespace {

std::chrono::sys_seconds hour_ending(int hh) { return std::chrono::floor<std::chrono::seconds>(at(hh)); }
TimeOfDay tod(int hh, int mm, int ss) { return TimeOfDay{hh * 3600 + mm * 60 + ss}; }

}  // namespace

TEST_CASE("count line: the grammar, with and without installation, `1 requests`") {
  CountLine line{.hour_ending = hour_ending(15),
                 .total = 641,
                 .entries = {{"api.github.com", Api::rest, 101, "merge-gate-sweeper", 640},
                             {"api.github.com", Api::graphql, 0, "other", 1}}};
  CHECK(format_line(line) ==
        "forge HTTP: 641 requests in the hour ending 2026-09-30T15:00Z \xE2\x80\x94 "
        "api.github.com rest installation 101 merge-gate-sweeper=640, api.github.com graphql other=1");
  CountLine one{.hour_ending = hour_ending(0), .total = 1, .entries = {{"h", Api::rest, 0, "other", 1}}};
  CHECK(format_line(one) == "forge HTTP: 1 requests in the hour ending 2026-09-30T00:00Z \u2014 h rest other=1");
}

TEST_CASE("notes: counted from, until … stopping, both, whole") {
  CountLine line{.hour_ending = hour_ending(15), .total = 1, .entries = {{"h", Api::rest, 0, "other", 1}}};
  line.note.counted_from = tod(14, 37, 0);
  CHECK(format_line(line) ==
        "forge HTTP: 1 requests in the hour ending 2026-09-30T15:00Z (counted from 14:37:00Z) \u2014 h rest other=1");
  line.note.until = tod(14, 50, 30);
  CHECK(format_line(line) ==
        "forge HTTP: 1 requests in the hour ending 2026-09-30T15:00Z (counted from 14:37:00Z, "
        "until 14:50:30Z, stopping) \u2014 h rest other=1");
  line.note.counted_from.reset();
  CHECK(
      format_line(line) ==
      "forge HTTP: 1 requests in the hour ending 2026-09-30T15:00Z (until 14:50:30Z, stopping) \u2014 h rest other=1");
  CHECK(HourNote{}.whole());
}

TEST_CASE("budget line: limit and reset only when known") {
  BudgetLine line{.hour_ending = hour_ending(15),
                  .entries = {{"api.github.com", Api::rest, 101, "", 4870, 5000, tod(14, 59, 58), tod(15, 12, 0)},
                              {"api.github.com", Api::rest, 102, "", 0, std::nullopt, tod(14, 1, 2), std::nullopt}}};
  CHECK(format_line(line) ==
        "forge rate limit: lowest remaining in the hour ending 2026-09-30T15:00Z \u2014 "
        "api.github.com rest installation 101: 4870 of 5000 at 14:59:58Z (resets 15:12:00Z), "
        "api.github.com rest installation 102: 0 at 14:01:02Z");
}

TEST_CASE("budget line: a resource other than the API's default is named after the installation") {
  BudgetLine line{.hour_ending = hour_ending(15),
                  .entries = {{"api.github.com", Api::rest, 101, "", 4000, 5000, tod(14, 20, 0), tod(14, 50, 0)},
                              {"api.github.com", Api::rest, 101, "search", 0, 30, tod(14, 2, 11), tod(14, 3, 0)}}};
  CHECK(format_line(line) ==
        "forge rate limit: lowest remaining in the hour ending 2026-09-30T15:00Z \u2014 "
        "api.github.com rest installation 101: 4000 of 5000 at 14:20:00Z (resets 14:50:00Z), "
        "api.github.com rest installation 101 search: 0 of 30 at 14:02:11Z (resets 14:03:00Z)");
  // A hand-made hostile resource cannot break the line: ':' ',' ' ' and control bytes are escaped.
  line.entries = {{"h", Api::rest, 1, "a: 5, x\x1b", 1, std::nullopt, tod(14, 0, 0), std::nullopt}};
  CHECK(format_line(line) ==
        "forge rate limit: lowest remaining in the hour ending 2026-09-30T15:00Z \u2014 h rest installation 1 "
        "a%3A%205%2C%20x%1B: 1 at 14:00:00Z");
  CHECK(default_resource(Api::rest) == "core");
  CHECK(default_resource(Api::graphql) == "graphql");
}

TEST_CASE("answers line: classes in order, zero classes left out") {
  AnswersEntry e{"api.github.com", Api::rest, {}};
  e.counts[static_cast<std::size_t>(AnswerClass::refused)] = 2;
  e.counts[static_cast<std::size_t>(AnswerClass::ok2xx)] = 10;
  e.counts[static_cast<std::size_t>(AnswerClass::not_modified)] = 4;
  e.counts[static_cast<std::size_t>(AnswerClass::limited)] = 1;
  e.counts[static_cast<std::size_t>(AnswerClass::secondary)] = 5;
  e.counts[static_cast<std::size_t>(AnswerClass::none)] = 3;
  AnswersEntry g{"api.github.com", Api::graphql, {}};
  g.counts[static_cast<std::size_t>(AnswerClass::server5xx)] = 1;
  g.counts[static_cast<std::size_t>(AnswerClass::client4xx)] = 2;
  g.counts[static_cast<std::size_t>(AnswerClass::redirect3xx)] = 3;
  AnswersLine line{.hour_ending = hour_ending(15), .entries = {g, e}};
  CHECK(format_line(line) ==
        "forge HTTP answers: in the hour ending 2026-09-30T15:00Z \u2014 "
        "api.github.com graphql 3xx=3 4xx=2 5xx=1, "
        "api.github.com rest 2xx=10 304=4 limited=1 secondary=5 none=3 refused=2");
  CHECK(to_string(AnswerClass::limited) == "limited");
  CHECK(to_string(AnswerClass::secondary) == "secondary");
}

TEST_CASE("format_line: a cache's coalesced and revalidated come after refused, only when non-zero") {
  AnswersEntry e{"api.github.com", Api::rest, {}};
  e.counts[static_cast<std::size_t>(AnswerClass::not_modified)] = 29;
  e.counts[static_cast<std::size_t>(AnswerClass::refused)] = 1;
  e.counts[static_cast<std::size_t>(AnswerClass::coalesced)] = 7;
  e.counts[static_cast<std::size_t>(AnswerClass::revalidated)] = 28;
  AnswersEntry f{"h", Api::rest, {}};
  f.counts[static_cast<std::size_t>(AnswerClass::coalesced)] = 3;
  AnswersLine line{.hour_ending = hour_ending(15), .entries = {e, f}};
  const auto text = format_line(line);
  CHECK(text ==
        "forge HTTP answers: in the hour ending 2026-09-30T15:00Z \u2014 "
        "api.github.com rest 304=29 refused=1 coalesced=7 revalidated=28, h rest coalesced=3");
  const LineScan back = scan_line(text);
  REQUIRE(back.kind == LineScan::Kind::line);
  CHECK(std::get<AnswersLine>(back.line) == line);
}

TEST_CASE("format_line: a hand-made hostile host or lane cannot break the line") {
  CountLine line{.hour_ending = hour_ending(15),
                 .total = 1,
                 .entries = {{"evil.com\n, x rest other=9 \xE2\x80\x94", Api::rest, 0, "Bad Lane", 1}}};
  const auto text = format_line(line);
  CHECK(text ==
        "forge HTTP: 1 requests in the hour ending 2026-09-30T15:00Z \u2014 "
        "evil.com%0A%2C%20x%20rest%20other%3D9%20%E2%80%94 rest ?ad??ane=1");
  for (char c : text) CHECK(static_cast<unsigned char>(c) >= 0x20);
}

TEST_CASE("lanes line: fields in order, each only when non-zero; reads back equal") {
  LanesEntry e{"api.github.com", Api::rest, 101, "sweeper", 5790, 12, {2000, 7, 1000}};
  LanesEntry g{"api.github.com", Api::graphql, 0, "other", 0, 1, {0, 42, 0}};
  LanesEntry h{"h", Api::rest, 0, "installation", 3, 0, {}};  // a lane may be named `installation`
  LanesEntry i{"h", Api::rest, 9, "installation", 0, 0, {1, 0, 0}};
  LanesLine line{.hour_ending = hour_ending(15),
                 .note = {.counted_from = std::chrono::minutes(14 * 60 + 37)},
                 .entries = {g, e, h, i}};
  const auto text = format_line(line);
  CHECK(text ==
        "forge HTTP lanes: in the hour ending 2026-09-30T15:00Z (counted from 14:37:00Z) \u2014 "
        "api.github.com graphql other coalesced=1 paced=42ms, "
        "api.github.com rest installation 101 sweeper revalidated=5790 coalesced=12 paused=2000ms paced=7ms "
        "spaced=1000ms, h rest installation revalidated=3, h rest installation 9 installation paused=1ms");
  const LineScan back = scan_line(text);
  REQUIRE(back.kind == LineScan::Kind::line);
  CHECK(std::get<LanesLine>(back.line) == line);
  LineReader reader;
  REQUIRE(reader.scan("{\"msg\":\"" + text + "\"}") == LineScan::Kind::line);
  CHECK(std::get<LanesLineView>(reader.line()).entries.size() == 4);
  CHECK(to_string(WaitCause::pause) == "paused");
  CHECK(to_string(WaitCause::pacing) == "paced");
  CHECK(to_string(WaitCause::secondary) == "spaced");
}

TEST_CASE("lanes line: the largest numbers read back; a hostile host or lane cannot break it") {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  LanesLine line{
      .hour_ending = hour_ending(15),
      .entries = {{"evil.com\n, x rest other=9", Api::rest, kMax, "Bad Lane", kMax, kMax, {kMax, kMax, kMax}}}};
  const auto text = format_line(line);
  CHECK(text ==
        "forge HTTP lanes: in the hour ending 2026-09-30T15:00Z \u2014 evil.com%0A%2C%20x%20rest%20other%3D9 "
        "rest installation 18446744073709551615 ?ad??ane revalidated=18446744073709551615 "
        "coalesced=18446744073709551615 paused=18446744073709551615ms paced=18446744073709551615ms "
        "spaced=18446744073709551615ms");
  for (char c : text) CHECK(static_cast<unsigned char>(c) >= 0x20);
  line.entries[0].lane = "ok";
  line.entries[0].host = "h";
  const LineScan back = scan_line(format_line(line));
  REQUIRE(back.kind == LineScan::Kind::line);
  CHECK(std::get<LanesLine>(back.line) == line);
}

TEST_CASE("lanes line: out of order, unknown, unitless or overflowing fields are malformed, with a reason") {
  const std::string head = "forge HTTP lanes: in the hour ending 2026-09-30T15:00Z \u2014 h rest l ";
  for (const auto& [tail, reason] : std::initializer_list<std::pair<const char*, const char*>>{
           {"coalesced=1 revalidated=2", "lane field 'revalidated' is unknown or out of order"},
           {"revalidated=1 revalidated=2", "lane field 'revalidated' is unknown or out of order"},
           {"saved=1", "lane field 'saved' is unknown or out of order"},
           {"paused=5", "expected 'ms' after the time waited at ''"},
           {"paced=18446744073709551616ms", "the lane field's value is too large"},
           {"coalesced=x", "expected the lane field's value (digits) at 'x'"},
       }) {
    const LineScan s = scan_line(head + tail);
    CHECK(s.kind == LineScan::Kind::malformed);
    CHECK(s.reason == reason);
  }
  CHECK(scan_line("forge HTTP lanes: in the hour ending 2026-09-30T15:00Z \u2014 h rest Bad revalidated=1").reason ==
        "lane 'Bad' is not a lane name");
}
