// Budgets as the forges keep them: one reading per (host, api, installation,
// resource), GitLab's unprefixed headers (RateLimit-Name, -ResetTime too),
// the `secondary` class, and GraphQL's RATE_LIMITED body.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <utility>

#include "meter/reading.h"
#include "meter/tally.h"
#include "meter_fixture.h"

using namespace forgemeter;
using namespace fmtest;

namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

// One answer: its headers as sent (any names) and its body.
struct Answer {
  Fields fields;
  UtcMillis seen;
  int status = 200;
  Api api = Api::rest;
  std::string body;
  void record(Meter& m) const {
    AnswerRecord a{.key = {.host = "api.github.com", .api = api, .installation = 101, .lane = Lane{"l"}},
                   .seen = seen,
                   .status = status,
                   .body = body};
    for (const auto& [name, value] : fields) a.headers.offer(name, value);
    m.record_answer(a);
  }
};

// The lines of the hour ending 15:00Z holding `answers`.
std::vector<std::string> hour_lines(const std::vector<Answer>& answers) {
  Rig rig(at(14));
  for (const auto& a : answers) a.record(*rig.meter);
  rig.clock.set_wall(at(16));
  rig.meter->flush();
  return rig.take();
}

std::string line_of(const std::vector<Answer>& answers, std::string_view head) {
  for (const auto& l : hour_lines(answers))
    if (l.starts_with(head)) return l;
  return "";
}
std::string budget_line(const std::vector<Answer>& answers) { return line_of(answers, "forge rate limit:"); }
std::string answers_line(const std::vector<Answer>& answers) { return line_of(answers, "forge HTTP answers:"); }

std::string epoch(UtcMillis t) {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count());
}

// GitHub's five headers.
Fields github(std::string remaining, std::string limit, UtcMillis reset, std::string resource = "") {
  Fields f{{"X-RateLimit-Limit", std::move(limit)},
           {"X-RateLimit-Remaining", std::move(remaining)},
           {"X-RateLimit-Used", "1"},
           {"X-RateLimit-Reset", epoch(reset)}};
  if (!resource.empty()) f.emplace_back("X-RateLimit-Resource", std::move(resource));
  return f;
}

const std::string kHead = "forge rate limit: lowest remaining in the hour ending 2026-09-30T15:00Z" + D;

}  // namespace

TEST_CASE("a search that runs out is its own budget, named after the installation; core's reading stands") {
  const auto line = budget_line({
      {github("4000", "5000", at(14, 50), "core"), at(14, 20)},
      {github("29", "30", at(14, 3), "search"), at(14, 2, 1)},
      {github("0", "30", at(14, 3), "search"), at(14, 2, 11)},
      {github("4100", "5000", at(14, 50), "core"), at(14, 10)},
  });
  CHECK(line == kHead +
                    "api.github.com rest installation 101: 4000 of 5000 at 14:20:00Z (resets 14:50:00Z), "
                    "api.github.com rest installation 101 search: 0 of 30 at 14:02:11Z (resets 14:03:00Z)");
}

TEST_CASE("traffic without X-RateLimit-Resource, or with the API's default, writes the lines it always did") {
  const std::string before = kHead +
                             "api.github.com graphql installation 101: 4990 of 5000 at 14:05:00Z (resets 15:00:00Z), "
                             "api.github.com rest installation 101: 4870 of 5000 at 14:59:58Z (resets 15:12:00Z)";
  for (const auto& [rest, gql] : {std::pair{"", ""}, std::pair{"core", "graphql"}, std::pair{" CORE ", "GraphQL"}}) {
    CAPTURE(rest);
    const auto line = budget_line({{github("4870", "5000", at(15, 12), rest), at(14, 59, 58)},
                                   {github("4990", "5000", at(15), gql), at(14, 5), 200, Api::graphql}});
    CHECK(line == before);
  }
  // The non-default name of the other API is a resource of its own.
  CHECK(budget_line({{github("7", "5000", at(15), "graphql"), at(14, 5)}}) ==
        kHead + "api.github.com rest installation 101 graphql: 7 of 5000 at 14:05:00Z (resets 15:00:00Z)");
}

TEST_CASE("each resource's lowest reading does not depend on the order answers arrive in") {
  std::vector<Answer> answers;
  const char* names[] = {"", "core", "search", "code_search", "SEARCH", "integration_manifest"};
  std::mt19937 rng(7);
  for (int i = 0; i < 60; ++i)
    answers.push_back({github(std::to_string(rng() % 20), rng() % 2 ? "30" : "5000", at(14, 40 + (int)(rng() % 10)),
                              names[rng() % std::size(names)]),
                       at(14, static_cast<int>(rng() % 30), static_cast<int>(rng() % 60))});
  const auto forward = budget_line(answers);
  for (int round = 0; round < 5; ++round) {
    std::shuffle(answers.begin(), answers.end(), rng);
    CHECK(budget_line(answers) == forward);
  }
  // Default first, then the named resources in byte order; `SEARCH` is `search`.
  const auto core = forward.find("installation 101: "), code = forward.find("installation 101 code_search: "),
             manifest = forward.find("installation 101 integration_manifest: "),
             search = forward.find("installation 101 search: ");
  CHECK(core < code);
  CHECK(code < manifest);
  CHECK(manifest < search);
  CHECK(search != std::string::npos);
  CHECK(forward.find("SEARCH") == std::string::npos);
}

TEST_CASE("a hostile resource name cannot break the line; a huge one, or too many, give no reading") {
  CHECK(budget_line({{github("3", "30", at(14, 3), "Se:a, rch=\x1b[31m"), at(14, 1)}}) ==
        kHead +
            "api.github.com rest installation 101 se%3Aa%2C%20rch%3D%1B[31m: 3 of 30 at 14:01:00Z (resets 14:03:00Z)");
  CHECK(budget_line({{github("3", "30", at(14, 3), std::string(65, 'x')), at(14, 1)}}).empty());
  CHECK(!budget_line({{github("3", "30", at(14, 3), std::string(64, 'x')), at(14, 1)}}).empty());
  std::vector<Answer> many;
  for (int i = 0; i < 40; ++i) many.push_back({github("1", "30", at(14, 3), "r" + std::to_string(100 + i)), at(14, 1)});
  many.push_back({github("4000", "5000", at(15)), at(14, 2)});  // the default is always kept
  const auto line = budget_line(many);
  CHECK(std::count(line.begin(), line.end(), ',') + 1 == meter::HourTally::kMaxResources + 1);
  CHECK(line.find("installation 101: 4000 of 5000") != std::string::npos);
  // Every answer is still counted.
  CHECK(answers_line(many).ends_with("api.github.com rest 2xx=41"));
}

TEST_CASE("GitLab's RateLimit-* headers give readings as GitHub's do; the X- headers win when both are sent") {
  const Fields gitlab{{"RateLimit-Limit", "600"},
                      {"RateLimit-Remaining", "17"},
                      {"RateLimit-Reset", epoch(at(14, 2))},
                      {"RateLimit-Observed", "583"}};
  CHECK(budget_line({{gitlab, at(14, 1, 30)}}) ==
        kHead + "api.github.com rest installation 101: 17 of 600 at 14:01:30Z (resets 14:02:00Z)");
  Fields both = gitlab;
  both.emplace_back("X-RateLimit-Remaining", "4000");
  CHECK(budget_line({{both, at(14, 1, 30)}}) == kHead + "api.github.com rest installation 101: 4000 at 14:01:30Z");
  // Gitea sends none: no reading, nothing invented.
  CHECK(budget_line({{{}, at(14, 1)}}).empty());
  // A GitLab 429 whose window is spent is `limited`; one with no headers at all is `secondary`.
  CHECK(answers_line({{{{"RateLimit-Remaining", "0"}, {"Retry-After", "30"}}, at(14, 1), 429}, {{}, at(14, 1), 429}})
            .ends_with("api.github.com rest limited=1 secondary=1"));
}

TEST_CASE("`secondary`: a 429, or a 403 with Retry-After or a body that says so, while the budget is not spent") {
  const std::string github_body =
      R"({"documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",)"
      R"("message":"You have exceeded a Secondary Rate Limit. Please wait a few minutes before you try again."})";
  const auto line = answers_line({
      {github("4999", "5000", at(15)), at(14, 1), 403, Api::rest, github_body},  // secondary: the body
      {github("4999", "5000", at(15)), at(14, 1), 403, Api::rest, R"({"message":"Must have admin rights"})"},  // 4xx
      {{{"Retry-After", "60"}}, at(14, 1), 403},                                 // secondary
      {github("0", "5000", at(15)), at(14, 1), 403, Api::rest, github_body},     // limited: remaining 0
      {github("0", "5000", at(15)), at(14, 1), 429},                             // limited
      {github("12", "5000", at(15)), at(14, 1), 429},                            // secondary
      {github("4999", "5000", at(15)), at(14, 1), 200, Api::rest, github_body},  // a 200 is a 200
  });
  CHECK(line.ends_with("api.github.com rest 2xx=1 limited=2 secondary=3 4xx=1"));
  CHECK(meter::says_secondary_limit("...secondary rate limit..."));
  CHECK_FALSE(meter::says_secondary_limit("secondary rate-limit"));
  CHECK_FALSE(meter::says_secondary_limit("secondary rate limi"));
  CHECK_FALSE(meter::says_secondary_limit(""));
}

TEST_CASE("rate_field: every name the meter reads, in any case; nothing else") {
  using meter::RateField;
  for (const auto& [name, f] : {std::pair{"x-ratelimit-limit", RateField::limit},
                                {"X-RATELIMIT-REMAINING", RateField::remaining},
                                {"X-RateLimit-Reset", RateField::reset},
                                {"retry-after", RateField::retry_after},
                                {"X-RateLimit-Resource", RateField::resource},
                                {"RateLimit-Limit", RateField::plain_limit},
                                {"ratelimit-remaining", RateField::plain_remaining},
                                {"RateLimit-Reset", RateField::plain_reset},
                                {"ratelimit-name", RateField::plain_name},
                                {"RateLimit-ResetTime", RateField::plain_reset_time}}) {
    CAPTURE(name);
    CHECK(meter::rate_field(name) == f);
  }
  for (const char* other :
       {"X-RateLimit-Used", "RateLimit-Observed", "X-RateLimit-Limits", "RateLimit-Resets", "X-RateLimit-Lxmit",
        "Content-Type", "", "RateLimit-Names", "RateLimit-ResetTimes", "RateLimit-Rxmaining", "RateLimit-ResetTxme"})
    CHECK(meter::rate_field(other) == RateField::none);
}

TEST_CASE("GitLab's RateLimit-Name names the resource; RateLimit-ResetTime is read when RateLimit-Reset is absent") {
  const Fields named{{"RateLimit-Limit", "600"},
                     {"RateLimit-Remaining", "17"},
                     {"RateLimit-Name", "Throttle_Authenticated_API"},
                     {"RateLimit-ResetTime", "Wed, 30 Sep 2026 14:02:00 GMT"}};
  CHECK(
      budget_line({{named, at(14, 1, 30)}}) ==
      kHead +
          "api.github.com rest installation 101 throttle_authenticated_api: 17 of 600 at 14:01:30Z (resets 14:02:00Z)");
  // RateLimit-Reset present: it is the one read.
  Fields both = named;
  both.emplace_back("RateLimit-Reset", epoch(at(14, 3)));
  CHECK(budget_line({{both, at(14, 1, 30)}}).ends_with("(resets 14:03:00Z)"));
  // X-RateLimit-Resource wins over RateLimit-Name; a date past 31 days, or no date, gives no reset.
  Fields x = named;
  x.emplace_back("X-RateLimit-Resource", "search");
  CHECK(budget_line({{x, at(14, 1, 30)}}).find(" search: 17 of 600") != std::string::npos);
  for (const char* bad : {"Wed, 30 Sep 2027 14:02:00 GMT", "Wednesday, 30-Sep-26 14:02:00 GMT",
                          "Wed Sep 30 14:02:00 2026", "Wed, 31 Sep 2026 14:02:00 GMT", "Wed, 30 Sep 2026 24:02:00 GMT",
                          "Wed, 30 Sep 2026 14:02:00 UTC", "Wed, 30 Sxp 2026 14:02:00 GMT", "", "1790000000"}) {
    CAPTURE(bad);
    Fields f = named;
    f[3].second = bad;
    CHECK(budget_line({{f, at(14, 1, 30)}}).ends_with("17 of 600 at 14:01:30Z"));
  }
}

TEST_CASE("parse_http_date: IMF-fixdate only") {
  using namespace std::chrono;
  CHECK(meter::parse_http_date(" Sun, 06 Nov 1994 08:49:37 GMT ") ==
        sys_days{1994y / 11 / 6} + hours{8} + minutes{49} + seconds{37});
  CHECK(meter::parse_http_date("Thu, 29 Feb 2024 00:00:00 GMT") == sys_seconds{sys_days{2024y / 2 / 29}});
  for (const char* bad :
       {"Thu, 29 Feb 2023 00:00:00 GMT", "Sun, 06 Nov 1994 08:60:37 GMT", "Sun, 06 Nov 1994 08:49:37",
        "Sun, 0x Nov 1994 08:49:37 GMT", "Sun, 06 nov 1994 08:49:37 GMT", "ovN, 06 Nov 1994 08:49:37 GMT x"})
    CHECK_FALSE(meter::parse_http_date(bad));
}

TEST_CASE("a GraphQL answer whose errors say RATE_LIMITED is `limited`, a 200 or a 403; nowhere else") {
  const std::string spent =
      R"({"errors":[{"type":"RATE_LIMITED","code":"graphql_rate_limit","message":"API rate limit exceeded"}]})";
  const std::string other = R"({"errors":[{"type":"NOT_FOUND","path":["repository"],"message":"RATE_LIMITED?"}]})";
  const auto line = answers_line({
      {github("0", "5000", at(15), "graphql"), at(14, 1), 200, Api::graphql, spent},     // limited
      {github("4000", "5000", at(15), "graphql"), at(14, 1), 403, Api::graphql, spent},  // limited
      {github("4000", "5000", at(15), "graphql"), at(14, 1), 200, Api::graphql, other},  // 2xx
      {github("4000", "5000", at(15)), at(14, 1), 200, Api::rest, spent},                // REST: a 200 is a 200
  });
  CHECK(line.ends_with("api.github.com graphql 2xx=1 limited=2, api.github.com rest 2xx=1"));
  CHECK(meter::class_needs_body(200, {}, Api::graphql));
  CHECK_FALSE(meter::class_needs_body(200, {}, Api::rest));
}

TEST_CASE("says_graphql_rate_limited: errors[].type of the answer's object, bounded, any JSON") {
  using meter::says_graphql_rate_limited;
  CHECK(
      says_graphql_rate_limited(R"( { "data" : null , "errors" : [ {"message":"x"}, { "type" : "RATE_LIMITED" } ] })"));
  CHECK(
      says_graphql_rate_limited(R"({"data":{"a":[1,{"b":"}]\""}]},"errors":[{"path":["x"],"type":"RATE_LIMITED"}]})"));
  // Not the path errors[].type: elsewhere, nested deeper, a key's name, another key's value, escaped.
  for (const char* no :
       {R"({"type":"RATE_LIMITED"})", R"({"data":{"errors":[{"type":"RATE_LIMITED"}]}})",
        R"({"errors":[{"extensions":{"type":"RATE_LIMITED"}}]})", R"({"errors":[{"RATE_LIMITED":"type"}]})",
        R"({"errors":[{"code":"RATE_LIMITED"}]})", R"({"errors":[{"message":""type":"RATE_LIMITED""}]})",
        R"([{"errors":[{"type":"RATE_LIMITED"}]}])", R"({"errors":{"type":"RATE_LIMITED"}})", R"(RATE_LIMITED)", ""}) {
    CAPTURE(no);
    CHECK_FALSE(says_graphql_rate_limited(no));
  }
  // Malformed or cut JSON is read as far as it goes; nothing breaks.
  CHECK(says_graphql_rate_limited(R"({"errors":[{"type":"RATE_LIMITED")"));
  for (const char* junk : {R"(}}}]]]"RATE_LIMITED")", R"({"errors":[{"type":"RATE_LIMITED)", R"({"errors":[{"type":)",
                           "{\"RATE_LIMITED", R"({"errors":[{"type")"}) {
    CAPTURE(junk);
    CHECK_FALSE(says_graphql_rate_limited(junk));
  }
  // Deeper than the walk keeps: given up, not overflowed.
  CHECK_FALSE(says_graphql_rate_limited(std::string(100000, '[') + "RATE_LIMITED"));
  // Only the first 64 KiB are read.
  const std::string late = R"({"data":")" + std::string(70 * 1024, 'x') + R"(","errors":[{"type":"RATE_LIMITED"}]})";
  CHECK_FALSE(says_graphql_rate_limited(late));
  const std::string early = R"({"data":")" + std::string(60 * 1024, 'x') + R"(","errors":[{"type":"RATE_LIMITED"}]})";
  CHECK(says_graphql_rate_limited(early));
}
