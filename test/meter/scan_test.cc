// scan_line(): finding lines in log lines, rejecting malformed ones, and the
// round-trip property parse(format(x)) == x over generated tallies.
#include <doctest/doctest.h>

#include <array>
#include <random>
#include <string_view>
#include <tuple>
#include <vector>

#include "forgemeter/line_view.h"

#include "meter_fixture.h"

using namespace forgemeter;

namespace {

const std::string kCount =
    "forge HTTP: 3 requests in the hour ending 2026-09-30T15:00Z (counted from 14:37:00Z) \u2014 "
    "api.github.com rest installation 101 sweeper=2, api.github.com graphql other=1";

// A line's fields with their text as views, whichever text the line holds:
// an owning line and a LineView compare equal when they hold the same line.
template <class T>
auto fields(const BasicCountEntry<T>& e) {
  return std::tuple<std::string_view, Api, std::uint64_t, std::string_view, std::uint64_t>(
      e.host, e.api, e.installation, e.lane, e.count);
}
template <class T>
auto fields(const BasicBudgetEntry<T>& e) {
  return std::tuple<std::string_view, Api, std::uint64_t, std::string_view, std::uint64_t, std::optional<std::uint64_t>,
                    TimeOfDay, std::optional<TimeOfDay>>(e.host, e.api, e.installation, e.resource, e.remaining,
                                                         e.limit, e.at, e.resets);
}
template <class T>
auto fields(const BasicAnswersEntry<T>& e) {
  return std::tuple<std::string_view, Api, std::array<std::uint64_t, kAnswerClasses>>(e.host, e.api, e.counts);
}

template <std::size_t Kind>
bool same_kind(const MeterLine& owned, const LineView& view) {
  const auto& o = std::get<Kind>(owned);
  const auto& v = std::get<Kind>(view);
  if (o.hour_ending != v.hour_ending || !(o.note == v.note) || o.entries.size() != v.entries.size()) return false;
  for (std::size_t i = 0; i < o.entries.size(); ++i)
    if (fields(o.entries[i]) != fields(v.entries[i])) return false;
  return true;
}

bool same(const MeterLine& owned, const LineView& view) {
  if (owned.index() != view.index()) return false;
  switch (owned.index()) {
    case 0: return same_kind<0>(owned, view) && std::get<0>(owned).total == std::get<0>(view).total;
    case 1: return same_kind<1>(owned, view);
    default: return same_kind<2>(owned, view);
  }
}

CountLine count_of(const LineScan& s) {
  REQUIRE(s.kind == LineScan::Kind::line);
  REQUIRE(std::holds_alternative<CountLine>(s.line));
  return std::get<CountLine>(s.line);
}

}  // namespace

TEST_CASE("scan: a plain line, after a timestamp and level prefix, with CRLF") {
  for (const std::string& log :
       {kCount, "2026-09-30T15:00:02.120Z INFO app[42]: " + kCount, "Sep 30 15:00:02 host app: " + kCount + "\r\n"}) {
    CAPTURE(log);
    auto line = count_of(scan_line(log));
    CHECK(line.total == 3);
    CHECK(line.note.counted_from == TimeOfDay{14 * 3600 + 37 * 60});
    CHECK_FALSE(line.note.until);
    REQUIRE(line.entries.size() == 2);
    CHECK(line.entries[0] == CountEntry{"api.github.com", Api::rest, 101, "sweeper", 2});
    CHECK(line.entries[1] == CountEntry{"api.github.com", Api::graphql, 0, "other", 1});
  }
}

TEST_CASE("scan: inside a JSON record, with the dash as \\u2014 and escaped slashes") {
  const std::string json =
      R"({"ts":"2026-09-30T15:00:02Z","level":"info","msg":"forge HTTP: 2 requests in the hour ending )"
      R"(2026-09-30T15:00Z \u2014 h\/x rest other=1, h rest lane.a=1","pid":7})";
  auto line = count_of(scan_line(json));
  CHECK(line.entries[0].host == "h/x");
  CHECK(line.entries[1].lane == "lane.a");
  // The same line, its dash written raw inside the JSON string.
  const std::string raw = R"({"msg":")" + kCount + R"("})";
  CHECK(count_of(scan_line(raw)).total == 3);
}

TEST_CASE("scan: a Docker json-file record, whose text ends with the line's own \\n, read once by the reader") {
  for (const char* end : {R"(\n)", R"(\r\n)", R"( \n)"}) {
    const std::string docker = R"({"log":")" + kCount + end + R"(","stream":"stderr","time":"2026-09-30T15:00:02Z"})";
    CAPTURE(docker);
    CHECK(count_of(scan_line(docker)).total == 3);
    LineReader reader;
    REQUIRE(reader.scan(docker) == LineScan::Kind::line);
    CHECK(std::get<CountLineView>(reader.line()).total == 3);
  }
  // One newline is the line's end; a second is a control byte inside the line.
  const auto two = scan_line(R"({"log":")" + kCount + R"(\n\n"})");
  CHECK(two.kind == LineScan::Kind::malformed);
  CHECK(two.reason == "a control byte inside the line");
  // A newline inside the text is not its end.
  const auto inside = scan_line(R"({"log":")" + kCount + R"(\n x"})");
  CHECK(inside.kind == LineScan::Kind::malformed);
}

TEST_CASE("scan: the budget and answers lines") {
  auto b = scan_line(
      "x forge rate limit: lowest remaining in the hour ending 2026-09-30T15:00Z \u2014 "
      "localhost:8443 rest installation 7: 0 at 14:59:59Z (resets 15:10:00Z), "
      "(other hosts) graphql installation 8: 12 of 5000 at 14:00:00Z");
  REQUIRE(b.kind == LineScan::Kind::line);
  const auto& budget = std::get<BudgetLine>(b.line);
  REQUIRE(budget.entries.size() == 2);
  CHECK(budget.entries[0].host == "localhost:8443");
  CHECK(budget.entries[0].resets == TimeOfDay{15 * 3600 + 600});
  CHECK_FALSE(budget.entries[0].limit);
  CHECK(budget.entries[1].host == kOtherHosts);
  CHECK(budget.entries[1].limit == 5000u);

  auto a = scan_line(
      "forge HTTP answers: in the hour ending 2026-09-30T15:00Z (until 14:20:00Z, stopping) \u2014 "
      "h rest 2xx=5 limited=1 refused=2");
  REQUIRE(a.kind == LineScan::Kind::line);
  const auto& answers = std::get<AnswersLine>(a.line);
  CHECK(answers.note.until == TimeOfDay{14 * 3600 + 20 * 60});
  CHECK(answers.entries[0].counts[static_cast<std::size_t>(AnswerClass::refused)] == 2);
}

TEST_CASE("scan: a budget entry's resource, and lines written before resources and `secondary` existed") {
  auto b = scan_line(
      "forge rate limit: lowest remaining in the hour ending 2026-09-30T15:00Z \u2014 "
      "api.github.com rest installation 101: 4000 of 5000 at 14:20:00Z (resets 14:50:00Z), "
      "api.github.com rest installation 101 search: 0 of 30 at 14:02:11Z (resets 14:03:00Z), "
      "api.github.com rest installation 101 code_search: 9 at 14:02:12Z");
  REQUIRE(b.kind == LineScan::Kind::line);
  const auto& budget = std::get<BudgetLine>(b.line);
  REQUIRE(budget.entries.size() == 3);
  CHECK(budget.entries[0].resource.empty());
  CHECK(budget.entries[1].resource == "search");
  CHECK(budget.entries[1].remaining == 0);
  CHECK(budget.entries[1].limit == 30u);
  CHECK(budget.entries[2].resource == "code_search");

  auto a = scan_line(
      "forge HTTP answers: in the hour ending 2026-09-30T15:00Z \u2014 h rest 2xx=5 limited=1 secondary=3 4xx=2");
  REQUIRE(a.kind == LineScan::Kind::line);
  const auto& counts = std::get<AnswersLine>(a.line).entries[0].counts;
  CHECK(counts[static_cast<std::size_t>(AnswerClass::limited)] == 1);
  CHECK(counts[static_cast<std::size_t>(AnswerClass::secondary)] == 3);
  CHECK(counts[static_cast<std::size_t>(AnswerClass::client4xx)] == 2);

  const std::string head =
      "forge rate limit: lowest remaining in the hour ending 2026-09-30T15:00Z \u2014 h rest installation 1";
  for (const auto& [text, why] :
       {std::pair{head + " : 5 at 14:00:00Z", "resource"}, std::pair{head + " se,arch: 5 at 14:00:00Z", "resource"},
        std::pair{head + " search 5 at 14:00:00Z", "resource"}, std::pair{head + " search", "resource"}}) {
    CAPTURE(text);
    auto s = scan_line(text);
    CHECK(s.kind == LineScan::Kind::malformed);
    CHECK_MESSAGE(s.reason.find(why) != std::string::npos, s.reason);
  }
  auto wrong_order =
      scan_line("forge HTTP answers: in the hour ending 2026-09-30T15:00Z \u2014 h rest secondary=1 limited=1");
  CHECK(wrong_order.kind == LineScan::Kind::malformed);
}

TEST_CASE("scan: text that holds no meter line") {
  for (std::string_view log :
       {"", "hello", "forge HTTP client started", "forge HTTPS: on", "forge rate limits", "forge HTTP", "forge "}) {
    CAPTURE(log);
    CHECK(scan_line(log).kind == LineScan::Kind::none);
  }
}

TEST_CASE("scan: text with a meter line's opening words up to their colon is a meter line, or malformed") {
  const std::string hour = " in the hour ending 2026-09-30T15:00Z \u2014 h rest other=5";
  for (const std::string& log : std::vector<std::string>{
           "forge HTTP: -5 requests" + hour, "forge HTTP: 0x10 requests" + hour, "forge HTTP: +7 requests" + hour,
           "forge HTTP: 5x requests" + hour, "forge HTTP: 5 request" + hour, "forge HTTP:  5 requests" + hour,
           "forge HTTP: 5  requests" + hour, "forge HTTP: ready", "forge rate limit: exceeded",
           "forge rate limit:  lowest remaining" + hour, "forge HTTP answer: in the hour ending 2026-09-30T15:00Z",
           "app: forge HTTP lanes:in the hour"}) {
    CAPTURE(log);
    const auto s = scan_line(log);
    CHECK(s.kind == LineScan::Kind::malformed);
    CHECK(!s.reason.empty());
    LineReader reader;  // the report's reader: the same answer
    CHECK(reader.scan(log) == LineScan::Kind::malformed);
  }
}

TEST_CASE("scan: malformed lines are rejected with a reason") {
  struct Row {
    std::string log;
    std::string reason_part;
  };
  const std::string head = "forge HTTP: 1 requests in the hour ending 2026-09-30T15:00Z";
  for (const Row& r : {
           Row{"forge HTTP: 1 requests in the ho", "' requests in the hour ending '"},
           Row{head + " \u2014 h rest other=2", "not the entries' sum 2"},
           Row{"forge HTTP: 1 requests in the hour ending 2026-09-31T15:00Z \u2014 h rest other=1", "hour ending"},
           Row{"forge HTTP: 1 requests in the hour ending 2026-09-30T15:30Z \u2014 h rest other=1", "hour ending"},
           Row{head + " (counted 14:00:00Z) \u2014 h rest other=1", "note"},
           Row{head + " (until 14:00:00Z) \u2014 h rest other=1", "stopping"},
           Row{head + " \u2014 h soap other=1", "'rest' or 'graphql'"},
           Row{head + " \u2014 h rest Other=1", "not a lane name"},
           Row{head + " \u2014 h rest other=x", "the count"},
           Row{head + " \u2014 h rest other=1, ", "unexpected text ','"},
           Row{head + " \u2014 h rest other=1, , h rest other=0", "host ''"},
           Row{head + " \u2014 h rest other=1 trailing", "unexpected text"},
           Row{head + " \u2014 h\tx rest other=1", "control byte"},
           Row{"{\"m\":\"" + head + " \\u2014 h rest other=1\\", "lone backslash"},
           Row{"{\"m\":\"" + head + " \\u20 h rest other=1\"}", "four hex digits"},
           Row{"{\"m\":\"" + head + " \\ud800 h rest other=1\"}", "surrogate"},
           Row{"{\"m\":\"" + head + " \\u2014 h\\\"q rest other=1\"}", "a byte a line never holds"},
           Row{"forge HTTP: 99999999999999999999 requests in the hour", "too large"},
           Row{"forge HTTP answers: in the hour ending 2026-09-30T15:00Z \u2014 h rest 4xx=1 2xx=1", "out of order"},
           Row{"forge rate limit: lowest remaining in the hour ending 2026-09-30T15:00Z \u2014 h rest installation 1: "
               "5 at 25:00:00Z",
               "HH:MM:SSZ"},
       }) {
    CAPTURE(r.log);
    auto s = scan_line(r.log);
    CHECK(s.kind == LineScan::Kind::malformed);
    CHECK_MESSAGE(s.reason.find(r.reason_part) != std::string::npos, s.reason);
  }
}

namespace {

struct Gen {
  std::mt19937_64 rng;
  std::uint64_t below(std::uint64_t n) { return rng() % n; }
  bool coin() { return rng() & 1; }

  std::string host() {
    switch (below(8)) {
      case 0: return std::string(kOtherHosts);
      case 1: return std::string(kNoHost);
      default: break;
    }
    static constexpr std::string_view kBytes = "abcdefghijklmnopqrstuvwxyzAZ0123456789.-:[]_~/!%";
    std::string h;
    for (auto n = 1 + below(20); n > 0; --n) h += kBytes[below(kBytes.size())];
    return h;
  }
  std::string resource() {
    if (coin()) return "";
    static constexpr std::string_view kBytes = "abcdefghijklmnopqrstuvwxyzAZ0123456789.-_[]~/!%";
    std::string r;
    for (auto n = 1 + below(12); n > 0; --n) r += kBytes[below(kBytes.size())];
    return r;
  }
  std::string lane() {
    if (below(3) == 0) return "other";
    static constexpr std::string_view kBytes = "abcxyz0129._-";
    std::string l(1, "az09"[below(4)]);
    for (auto n = below(10); n > 0; --n) l += kBytes[below(kBytes.size())];
    return l;
  }
  std::uint64_t number() {
    switch (below(4)) {
      case 0: return below(10);
      case 1: return rng();
      default: return below(100000);
    }
  }
  TimeOfDay tod() { return TimeOfDay{static_cast<std::int64_t>(below(86400))}; }
  std::chrono::sys_seconds hour() {
    // Years 1970-9999: what the grammar's YYYY holds.
    return std::chrono::sys_seconds{std::chrono::hours{below(8029ull * 8760)}};
  }
  HourNote note() {
    HourNote n;
    if (coin()) n.counted_from = tod();
    if (coin()) n.until = tod();
    return n;
  }
  Api api() { return coin() ? Api::rest : Api::graphql; }

  MeterLine line() {
    const auto n = below(6);
    switch (below(3)) {
      case 0: {
        CountLine l{.hour_ending = hour(), .note = note()};
        for (auto i = n; i > 0; --i) {
          l.entries.push_back({host(), api(), coin() ? 0 : number(), lane(), below(1'000'000'000)});
          l.total += l.entries.back().count;
        }
        return l;
      }
      case 1: {
        BudgetLine l{.hour_ending = hour(), .note = note()};
        for (auto i = n; i > 0; --i) {
          BudgetEntry e{host(), api(), number(), resource(), number(), std::nullopt, tod(), std::nullopt};
          if (coin()) e.limit = number();
          if (coin()) e.resets = tod();
          l.entries.push_back(e);
        }
        return l;
      }
      default: {
        AnswersLine l{.hour_ending = hour(), .note = note()};
        for (auto i = n; i > 0; --i) {
          AnswersEntry e{host(), api(), {}};
          for (auto& c : e.counts) c = coin() ? 0 : number();
          l.entries.push_back(e);
        }
        return l;
      }
    }
  }
};

}  // namespace

TEST_CASE("round trip: parse(format(x)) == x for generated lines, plain and JSON-escaped, owned and viewed") {
  Gen gen{std::mt19937_64{20260930}};
  LineReader reader;  // one for every line: each kind's entries reused after the others'
  for (int i = 0; i < 3000; ++i) {
    const MeterLine x = gen.line();
    const std::string text = format_line(x);
    CAPTURE(text);
    const std::string log = "2026-09-30T15:00:00Z INFO " + text;
    auto plain = scan_line(log);
    REQUIRE(plain.kind == LineScan::Kind::line);
    CHECK(plain.line == x);
    REQUIRE(reader.scan(log) == LineScan::Kind::line);
    CHECK(same(x, reader.line()));
    // As a JSON encoder would write it: the dash as \u2014, '/' as "\/".
    std::string json = "{\"msg\":\"";
    for (std::size_t p = 0; p < text.size(); ++p) {
      if (text.compare(p, 3, "\u2014") == 0) {
        json += "\\u2014";
        p += 2;
      } else if (text[p] == '/') {
        json += "\\/";
      } else {
        json += text[p];
      }
    }
    json += "\",\"n\":1}";
    auto escaped = scan_line(json);
    REQUIRE(escaped.kind == LineScan::Kind::line);
    CHECK(escaped.line == x);
    REQUIRE(reader.scan(json) == LineScan::Kind::line);
    CHECK(same(x, reader.line()));
  }
}
