// Hosts: display form (lower case, escapes) and folding past the hour's limit.
#include <doctest/doctest.h>

#include <set>

#include "meter_fixture.h"

using namespace forgemeter;
using namespace fmtest;

namespace {

const Lane kLane{"l"};

std::uint64_t total_of(const std::string& line) {
  auto s = scan_line(line);
  REQUIRE(s.kind == LineScan::Kind::line);
  return std::get<CountLine>(s.line).total;
}

}  // namespace

TEST_CASE("hosts are lower-cased; two spellings of one host are one entry") {
  Rig rig(at(14));
  rig.request("API.GitHub.com", kLane, at(14, 1));
  rig.request("api.github.com", kLane, at(14, 2));
  rig.request("h", kLane, at(15));
  CHECK(rig.take() ==
        Lines{"forge HTTP: 2 requests in the hour ending 2026-09-30T15:00Z" + D + "api.github.com rest l=2"});
}

TEST_CASE("a hostile host cannot break a line: every unsafe byte is escaped, and the line parses back") {
  Rig rig(at(14));
  const std::string hostile =
      std::string("evil.com\r\nforge HTTP: 9 requests") + '\0' + "\x1b[31m,a=b \"q\\\" (x) 100%\xE2\x80\x94\xff";
  rig.request(hostile, kLane, at(14, 1), 5);
  rig.request("", kLane, at(14, 2));
  AnswerRecord a{.key = {.host = hostile, .installation = 5, .lane = kLane}, .seen = at(14, 3), .status = 200};
  a.headers.offer("X-RateLimit-Remaining", "7");
  rig.meter->record_answer(a);
  rig.request("h", kLane, at(15));
  const auto lines = rig.take();
  REQUIRE(lines.size() == 3);
  const std::string shown =
      "evil.com%0D%0Aforge%20http:%209%20requests%00%1B[31m%2Ca%3Db%20%22q%5C%22%20%28x%29%20100%25%E2%80%94%FF";
  CHECK(lines[0] == "forge HTTP: 2 requests in the hour ending 2026-09-30T15:00Z" + D + "(no host) rest l=1, " + shown +
                        " rest installation 5 l=1");
  CHECK(lines[1] == "forge rate limit: lowest remaining in the hour ending 2026-09-30T15:00Z" + D + shown +
                        " rest installation 5: 7 at 14:03:00Z");
  for (const auto& l : lines) {
    CAPTURE(l);
    for (std::size_t i = 0; i < l.size(); ++i) {
      const auto c = static_cast<unsigned char>(l[i]);
      const bool in_dash = l.compare(i, 3, "\u2014") == 0 || (i > 0 && l.compare(i - 1, 3, "\u2014") == 0) ||
                           (i > 1 && l.compare(i - 2, 3, "\u2014") == 0);
      const bool printable = c >= 0x20 && c < 0x7f;
      CHECK((printable || in_dash));
    }
    CHECK(scan_line(l).kind == LineScan::Kind::line);
  }
  CHECK(std::get<CountLine>(scan_line(lines[0]).line).entries[1].host == shown);
}

TEST_CASE("folding: past 64 hosts new hosts count under (other hosts), named hosts keep theirs, nothing is dropped") {
  Rig rig(at(14));
  for (int i = 0; i < 70; ++i) {
    const std::string host = "h" + std::to_string(100 + i) + ".example";
    rig.request(host, kLane, at(14, 1), 101);
    rig.request(host, kLane, at(14, 1), 101);
    AnswerRecord a{.key = {.host = host, .installation = 101, .lane = kLane}, .seen = at(14, 2), .status = 200};
    const auto remaining = std::to_string(1000 - i);
    a.headers.offer("X-RateLimit-Remaining", remaining);
    rig.meter->record_answer(a);
  }
  rig.request("h100.example", Lane{"late"}, at(14, 30), 101);  // named already: keeps its own entries
  rig.request("h200.example", Lane{"late"}, at(14, 30), 101);  // new after the limit: folded
  rig.request("x", kLane, at(15));
  const auto lines = rig.take();
  REQUIRE(lines.size() == 3);
  CHECK(total_of(lines[0]) == 142);
  const auto count = std::get<CountLine>(scan_line(lines[0]).line);
  std::set<std::string> hosts;
  for (const auto& e : count.entries) hosts.insert(e.host);
  CHECK(hosts.size() == 65);
  CHECK(hosts.contains("h100.example"));
  CHECK(hosts.contains("h163.example"));
  CHECK_FALSE(hosts.contains("h164.example"));
  CHECK(count.entries.front() == CountEntry{std::string(kOtherHosts), Api::rest, 101, "l", 12});
  CHECK(lines[0].find("(other hosts) rest installation 101 late=1") != std::string::npos);
  CHECK(lines[0].find("h100.example rest installation 101 late=1") != std::string::npos);
  // The budget line folds alike: the lowest of the folded hosts' readings.
  CHECK(lines[1].find("(other hosts) rest installation 101: 931 at 14:02:00Z") != std::string::npos);
  CHECK(lines[1].find("h163.example rest installation 101: 937 at") != std::string::npos);
  CHECK(lines[1].find("h164.example") == std::string::npos);
  CHECK(lines[2].find("(other hosts) rest 2xx=6") != std::string::npos);
}

TEST_CASE("max_hosts is configurable and must be at least 1") {
  CHECK_THROWS_AS(Meter({.max_hosts = 0}), std::invalid_argument);
  Rig rig(at(14), 1);
  rig.request("a", kLane, at(14, 1));
  rig.request("b", kLane, at(14, 2));
  rig.request("c", kLane, at(14, 3));
  rig.request("a", kLane, at(15));
  CHECK(rig.take() == Lines{"forge HTTP: 3 requests in the hour ending 2026-09-30T15:00Z" + D +
                            "(other hosts) rest l=2, a rest l=1"});
}

TEST_CASE("host after host: past the hosts a line shows, the rest fold into (other hosts), nothing dropped") {
  Rig rig(at(14), 1);
  constexpr int kHosts = 9000;  // past the 4096 distinct keys a shard keeps before folding early
  for (int i = 0; i < kHosts; ++i) {
    const std::string host = "h" + std::to_string(i) + ".example";
    rig.request(host, kLane, at(14, 1));
    rig.meter->record_answer({.key = {.host = host, .lane = kLane}, .seen = at(14, 1), .status = 200});
  }
  rig.request("h0.example", kLane, at(15));
  CHECK(rig.take() == Lines{"forge HTTP: 9000 requests in the hour ending 2026-09-30T15:00Z" + D +
                                "(other hosts) rest l=8999, h0.example rest l=1",
                            "forge HTTP answers: in the hour ending 2026-09-30T15:00Z" + D +
                                "(other hosts) rest 2xx=8999, h0.example rest 2xx=1"});
}
