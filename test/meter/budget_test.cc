// The budget line's reading rules, the lowest reading's order, answer classes.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "meter/reading.h"
#include "meter_fixture.h"

using namespace forgemeter;
using namespace fmtest;

namespace {

const Lane kLane{"sweeper"};
const RequestKey kKey{.host = "api.github.com", .installation = 101, .lane = kLane};

std::int64_t epoch_s(UtcMillis t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

struct Hdr {
  std::string remaining, limit, reset, retry_after;
};

// An answer to record; its header views point into `h`, so it records itself.
struct Ans {
  Hdr h;
  UtcMillis seen;
  int status = 200;
  RequestKey key = kKey;
  void record(Meter& m) const {
    AnswerRecord a{.key = key, .seen = seen, .status = status};
    if (!h.remaining.empty()) a.headers.offer("X-RateLimit-Remaining", h.remaining);
    if (!h.limit.empty()) a.headers.offer("x-ratelimit-limit", h.limit);
    if (!h.reset.empty()) a.headers.offer("X-RATELIMIT-RESET", h.reset);
    if (!h.retry_after.empty()) a.headers.offer("Retry-After", h.retry_after);
    m.record_answer(a);
  }
};

Ans answer(Hdr h, UtcMillis seen, int status = 200, RequestKey key = kKey) { return {std::move(h), seen, status, key}; }

// The budget line of one hour holding `answers` (or "" when there is none).
std::string budget_line(const std::vector<Ans>& answers) {
  Rig rig(at(14));
  for (const auto& a : answers) a.record(*rig.meter);
  rig.meter->record_request(kKey, at(15));
  for (const auto& l : rig.take())
    if (l.starts_with("forge rate limit:")) return l;
  return "";
}

const std::string kHead = "forge rate limit: lowest remaining in the hour ending 2026-09-30T15:00Z" + D;

}  // namespace

TEST_CASE("X-RateLimit-Remaining: an integer >= 0, else no reading at all") {
  for (std::string bad : {"soon", "-1", "+5", "1.5", "", "  ", "5000x", "99999999999999999999999", "\x01"}) {
    CAPTURE(bad);
    CHECK(budget_line({answer({.remaining = bad, .limit = "5000"}, at(14, 1))}).empty());
  }
  CHECK(budget_line({answer({.remaining = " 42 "}, at(14, 1))}) ==
        kHead + "api.github.com rest installation 101: 42 at 14:01:00Z");
}

TEST_CASE("X-RateLimit-Remaining twice in one answer: the lower number, in either order") {
  for (const auto& [first, second] :
       {std::pair{"4990", "17"}, std::pair{"17", "4990"}, std::pair{"17", "soon"}, std::pair{"soon", "17"}}) {
    CAPTURE(first);
    CAPTURE(second);
    RateLimitHeaders h;
    h.offer("X-RateLimit-Remaining", first);
    h.offer("x-ratelimit-remaining", second);
    CHECK(h.remaining == "17");
    h.offer("RateLimit-Remaining", second);
    h.offer("RateLimit-Remaining", first);
    CHECK(h.plain_remaining == "17");
  }
  RateLimitHeaders last;  // any other field: the last value
  last.offer("X-RateLimit-Limit", "5000");
  last.offer("X-RateLimit-Limit", "60");
  CHECK(last.limit == "60");
}

TEST_CASE("only answers to requests with an installation give a reading") {
  RequestKey none = kKey;
  none.installation = 0;
  CHECK(budget_line({answer({.remaining = "5"}, at(14, 1), 200, none)}).empty());
}

TEST_CASE("X-RateLimit-Limit: kept only when a positive integer") {
  CHECK(budget_line({answer({.remaining = "1", .limit = "5000"}, at(14, 1))}) ==
        kHead + "api.github.com rest installation 101: 1 of 5000 at 14:01:00Z");
  for (std::string bad : {"0", "-5000", "lots", ""}) {
    CAPTURE(bad);
    CHECK(budget_line({answer({.remaining = "1", .limit = bad}, at(14, 1))}) ==
          kHead + "api.github.com rest installation 101: 1 at 14:01:00Z");
  }
}

TEST_CASE("X-RateLimit-Reset: epoch seconds or (below 10^9) seconds from now; after now, at most 31 days ahead") {
  const auto seen = at(14, 1);
  auto with_reset = [&](std::string reset) {
    return budget_line({answer({.remaining = "1", .reset = std::move(reset)}, seen)});
  };
  const std::string plain = kHead + "api.github.com rest installation 101: 1 at 14:01:00Z";
  CHECK(with_reset(std::to_string(epoch_s(at(14, 30)))) == plain + " (resets 14:30:00Z)");
  CHECK(with_reset("600") == plain + " (resets 14:11:00Z)");                                       // relative
  CHECK(with_reset(std::to_string(epoch_s(seen))) == plain);                                       // not after now
  CHECK(with_reset(std::to_string(epoch_s(at(13)))) == plain);                                     // in the past
  CHECK(with_reset(std::to_string(epoch_s(seen) + 31 * 86400)) == plain + " (resets 14:01:00Z)");  // 31 days: kept
  CHECK(with_reset(std::to_string(epoch_s(seen) + 31 * 86400 + 1)) == plain);                      // past 31 days
  CHECK(with_reset("0") == plain);
  CHECK(with_reset("soon") == plain);
  CHECK(with_reset("-60") == plain);
  CHECK(with_reset("99999999999999999999") == plain);
}

TEST_CASE("the lowest reading does not depend on the order answers arrive in") {
  const auto r = [](int mm, int ss) { return std::to_string(epoch_s(at(14, mm, ss))); };
  std::vector<Ans> answers = {
      answer({.remaining = "10", .limit = "5000", .reset = r(50, 0)}, at(14, 5)),
      answer({.remaining = "3", .limit = "5000", .reset = r(50, 0)}, at(14, 9)),
      answer({.remaining = "3", .limit = "5000", .reset = r(40, 0)}, at(14, 7)),  // same remaining, seen earlier
      answer({.remaining = "3", .limit = "5000"}, at(14, 7)),                     // ... and no reset: earliest
      answer({.remaining = "3", .limit = "4000"}, at(14, 7)),                     // ... and a lower limit
      answer({.remaining = "3"}, at(14, 7)),                                      // ... and no limit: the lowest
      answer({.remaining = "7"}, at(14, 1)),
  };
  const auto forward = budget_line(answers);
  std::reverse(answers.begin(), answers.end());
  CHECK(budget_line(answers) == forward);
  std::rotate(answers.begin(), answers.begin() + 3, answers.end());
  CHECK(budget_line(answers) == forward);
  CHECK(forward == kHead + "api.github.com rest installation 101: 3 at 14:07:00Z");
  answers.erase(std::find_if(answers.begin(), answers.end(),
                             [](const Ans& a) { return a.h.remaining == "3" && a.h.limit.empty(); }));
  CHECK(budget_line(answers) == kHead + "api.github.com rest installation 101: 3 of 4000 at 14:07:00Z");
}

TEST_CASE("budget entries: one per host, api and installation, ordered so; lanes share it") {
  RequestKey other_lane = kKey;
  other_lane.lane = Lane{"another"};
  RequestKey gql = kKey;
  gql.api = Api::graphql;
  RequestKey inst7 = kKey;
  inst7.installation = 7;
  CHECK(budget_line({answer({.remaining = "9"}, at(14, 1), 200, other_lane), answer({.remaining = "8"}, at(14, 2)),
                     answer({.remaining = "5"}, at(14, 3), 200, gql),
                     answer({.remaining = "6"}, at(14, 4), 200, inst7)}) ==
        kHead +
            "api.github.com graphql installation 101: 5 at 14:03:00Z, api.github.com rest installation 7: 6 at "
            "14:04:00Z, api.github.com rest installation 101: 8 at 14:02:00Z");
}

TEST_CASE("answer classes") {
  Rig rig(at(14));
  const auto t = at(14, 1);
  for (const auto& a : {answer({}, t, 200), answer({}, t, 204), answer({}, t, 304), answer({}, t, 302),
                        answer({.remaining = "0"}, t, 403), answer({.retry_after = "30"}, t, 429),
                        answer({.remaining = "12"}, t, 403), answer({}, t, 429), answer({}, t, 404), answer({}, t, 502),
                        answer({}, t, 999), answer({}, t, 101), answer({}, t, kNoAnswer)})
    a.record(*rig.meter);
  rig.meter->record_refused(kKey, t);
  rig.clock.set_wall(at(16));
  rig.meter->flush();
  const auto lines = rig.take();
  REQUIRE(lines.size() == 2);
  // 403 remaining 0: limited; 429 with Retry-After, and a bare 429: secondary;
  // 403 with a healthy budget and no Retry-After (nor a body saying so): 4xx.
  CHECK(lines[1] == "forge HTTP answers: in the hour ending 2026-09-30T15:00Z" + D +
                        "api.github.com rest 2xx=2 304=1 3xx=1 limited=1 secondary=2 4xx=2 5xx=3 none=1 refused=1");
}

TEST_CASE("a header integer reads up to 2^64-1 exactly; one past it is no integer") {
  // The budget line shows the remaining as read, or is absent when it is no integer.
  auto budget_of = [](const std::string& value) {
    Rig rig(at(14));
    AnswerRecord a{.key = kKey, .seen = at(14, 30), .status = 200};
    a.headers.offer("X-RateLimit-Remaining", value);
    rig.meter->record_answer(a);
    rig.meter->flush();
    std::string budget;
    for (const auto& l : rig.take())
      if (l.starts_with("forge rate limit:")) budget = l;
    return budget;
  };
  CHECK(budget_of("18446744073709551615").ends_with(": 18446744073709551615 at 14:30:00Z"));
  CHECK(budget_of(" 1844674407370955161 ").ends_with(": 1844674407370955161 at 14:30:00Z"));
  CHECK(budget_of("00000000000000000000042").ends_with(": 42 at 14:30:00Z"));
  CHECK(budget_of("18446744073709551616").empty());
  CHECK(budget_of("28446744073709551615").empty());
  CHECK(budget_of("1844674407370955161x").empty());
}

TEST_CASE("parse_header_uint agrees with digit-by-digit reading on every length and byte") {
  // The reference: trim spaces and tabs (and a trailing CR/LF), then digits only, at most 2^64-1.
  auto reference = [](std::string_view v) -> std::optional<std::uint64_t> {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r' || v.back() == '\n'))
      v.remove_suffix(1);
    if (v.empty()) return std::nullopt;
    unsigned __int128 x = 0;
    for (char c : v) {
      if (c < '0' || c > '9') return std::nullopt;
      x = x * 10 + static_cast<unsigned>(c - '0');
      if (x > std::numeric_limits<std::uint64_t>::max()) return std::nullopt;
    }
    return static_cast<std::uint64_t>(x);
  };
  std::mt19937_64 rng(42);
  const std::string alphabet = "0123456789012345678901234567890123456789 \t/:;@`\x7f\xff-+.";
  for (int round = 0; round < 200000; ++round) {
    const std::size_t len = rng() % 26;
    std::string v;
    for (std::size_t i = 0; i < len; ++i)
      v += rng() % 8 == 0 ? alphabet[rng() % alphabet.size()] : static_cast<char>('0' + rng() % 10);
    if (round % 3 == 0 && !v.empty()) v[0] = ' ';
    INFO("value \"" << v << "\"");
    REQUIRE(meter::parse_header_uint(v) == reference(v));
  }
  for (std::string v :
       {"18446744073709551615", "18446744073709551616", "99999999999999999999", "0000000000000000000000001",
        "1844674407370955161", "12345678", "123456789", "1234567890123456", "12345678x", "x2345678"})
    CHECK(meter::parse_header_uint(v) == reference(v));
}
