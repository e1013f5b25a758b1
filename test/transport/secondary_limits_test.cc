// GitHub's secondary-limit triggers kept under, on a ManualClock: in flight,
// points a minute, content created a minute and an hour, the spacing between
// writes; each switched off by 0; what counts as a write; idle installations
// forgotten.
#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "forgemeter/testing/manual_clock.h"
#include "pacing_clock.h"
#include "transport/admission/secondary_limits.h"

using namespace std::chrono_literals;
using forgemeter::Api;
using forgemeter::ManualClock;
using forgemeter::SteadyTime;
using forgemeter::UtcMillis;
namespace td = forgemeter::transport_detail;

namespace {

constexpr UtcMillis kStart = fmtest::kPaceStart;
const td::RequestKind kGet = td::kind_of("GET", Api::rest, "");
const td::RequestKind kPost = td::kind_of("POST", Api::rest, "");

// Sends `n` requests of kind `k` on installation 101 as fast as the limits
// allow (time jumps to each retry_at); returns when each went.
std::vector<SteadyTime> burst(ManualClock& clock, td::SecondaryLimits& limits, int n, const td::RequestKind& k) {
  std::vector<SteadyTime> sent;
  while (static_cast<int>(sent.size()) < n) {
    const td::SecondaryVerdict v = limits.admit(101, k);
    if (v.go) {
      sent.push_back(clock.steady_now());
      limits.release(101);
    } else {
      REQUIRE(v.retry_at > clock.steady_now());
      clock.advance(v.retry_at - clock.steady_now());
    }
  }
  return sent;
}

// The most requests of `sent` in any window of `span`.
std::size_t most_in(const std::vector<SteadyTime>& sent, forgemeter::Duration span) {
  std::size_t most = 0;
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const auto end = std::lower_bound(sent.begin(), sent.end(), sent[i] + span);
    most = std::max(most, static_cast<std::size_t>(end - (sent.begin() + static_cast<std::ptrdiff_t>(i))));
  }
  return most;
}

}  // namespace

TEST_CASE("at most 100 in flight per installation; a release lets the next one go") {
  ManualClock clock(kStart);
  td::SecondaryLimits limits({}, clock);
  int went = 0;
  for (int i = 0; i < 150; ++i) went += limits.admit(101, kGet).go ? 1 : 0;
  CHECK(went == 100);
  const td::SecondaryVerdict held = limits.admit(101, kGet);
  CHECK_FALSE(held.go);
  CHECK(held.limit == "max_in_flight");
  CHECK(held.retry_at == clock.steady_now() + 5ms);
  CHECK(limits.admit(202, kGet).go);  // another installation has its own
  CHECK(limits.admit(0, kGet).go);    // no installation: not counted
  limits.release(101);
  CHECK(limits.admit(101, kGet).go);
}

TEST_CASE("REST points: 900 a minute, a read 1 and a write 5; GraphQL: 2000, a mutation 5") {
  ManualClock clock(kStart);
  td::SecondaryLimits limits({.max_in_flight = 0, .writes_per_minute = 0, .writes_per_hour = 0}, clock);
  const std::vector<SteadyTime> reads = burst(clock, limits, 1000, kGet);
  CHECK(most_in(reads, 1min) == 900);
  CHECK(reads[900] == reads[0] + 1min);  // the 901st waits until the first is a minute old
  clock.advance(1min);
  CHECK(most_in(burst(clock, limits, 400, kPost), 1min) == 180);

  clock.advance(1min);
  const auto query = td::kind_of("POST", Api::graphql, R"({"query": "query { viewer { login } }"})");
  const auto mutation =
      td::kind_of("POST", Api::graphql, R"({"query":"\n  mutation { addStar(input: {}) { clientMutationId } }"})");
  CHECK_FALSE(query.write);
  CHECK(mutation.write);
  CHECK(mutation.creates_content);
  CHECK(most_in(burst(clock, limits, 2100, query), 1min) == 2000);
  clock.advance(1min);
  CHECK(most_in(burst(clock, limits, 500, mutation), 1min) == 400);
}

TEST_CASE("a steady 20 reads a second for five minutes: 900 in any minute, each held one goes when it may") {
  ManualClock clock(kStart);
  td::SecondaryLimits limits({.max_in_flight = 0, .writes_per_minute = 0, .writes_per_hour = 0}, clock);
  std::vector<SteadyTime> sent;
  std::size_t held = 0;
  const SteadyTime end = clock.steady_now() + 5min;
  while (clock.steady_now() < end) {
    clock.advance(50ms);
    td::SecondaryVerdict v = limits.admit(101, kGet);
    if (!v.go) {
      ++held;
      // the oldest of the last 900 leaves the window: not sooner, not later
      REQUIRE(sent.size() >= 900);
      CHECK(v.retry_at == sent[sent.size() - 900] + 1min);
      clock.advance(v.retry_at - clock.steady_now());
      v = limits.admit(101, kGet);
      REQUIRE(v.go);
    }
    sent.push_back(clock.steady_now());
    limits.release(101);
  }
  CHECK(held == 5);  // 900 in 45 s, then a wait to the minute: once a minute
  CHECK(most_in(sent, 1min) == 900);
  clock.advance(2min);  // the window empties, and is filled again
  const std::vector<SteadyTime> reads = burst(clock, limits, 1000, kGet);
  CHECK(most_in(reads, 1min) == 900);
  CHECK(reads[900] == reads[0] + 1min);
}

TEST_CASE("past 64, an idle installation is forgotten a minute after the last look; one seen since is kept") {
  ManualClock clock(kStart);
  td::SecondaryLimits limits({}, clock);
  const auto once = [&](std::uint64_t installation) {
    const td::SecondaryVerdict v = limits.admit(installation, kGet);
    REQUIRE(v.go);
    limits.release(installation);
    return v.fresh;
  };
  for (std::uint64_t i = 1; i <= 100; ++i) CHECK(once(i));  // past the 64 idle ones always kept
  clock.advance(30s);
  CHECK_FALSE(once(1));  // within its minute: kept
  CHECK_FALSE(once(2));
  clock.advance(31s);  // a minute since the last look, and the rest idle: 101's admission forgets them
  CHECK(once(101));
  CHECK(once(3));        // forgotten: counted afresh
  CHECK_FALSE(once(1));  // its window still holds the read at 30 s
}

TEST_CASE("64 idle installations are kept; past that, the idle are also looked for when the map has doubled") {
  const auto once = [](td::SecondaryLimits& limits, std::uint64_t installation) {
    const td::SecondaryVerdict v = limits.admit(installation, kGet);
    REQUIRE(v.go);
    limits.release(installation);
    return v.fresh;
  };
  ManualClock clock(kStart);
  td::SecondaryLimits few({}, clock);
  for (std::uint64_t i = 1; i <= 64; ++i) CHECK(once(few, i));
  clock.advance(2min);
  CHECK_FALSE(once(few, 1));  // idle for a minute, but one of 64: kept

  // Only max_in_flight on: no window is kept, so a released installation is idle at once.
  td::SecondaryLimits limits(
      {.rest_points_per_minute = 0, .graphql_points_per_minute = 0, .writes_per_minute = 0, .writes_per_hour = 0},
      clock);
  for (std::uint64_t i = 1; i <= 66; ++i) CHECK(once(limits, i));  // the first look, at the 66th, forgets 1..65
  CHECK(once(limits, 1));
  for (std::uint64_t i = 101; i <= 200; ++i) CHECK(once(limits, i));  // no time passes; the map passes 64 again
  CHECK(once(limits, 1));  // forgotten again, by a look the map's growth called
}

TEST_CASE("a burst of 200 writes: at most 80 in any minute; 600: at most 500 in any hour; 1 s apart when asked") {
  ManualClock clock(kStart);
  td::SecondaryLimits limits({.rest_points_per_minute = 0}, clock);
  CHECK(most_in(burst(clock, limits, 200, kPost), 1min) == 80);
  clock.advance(2h);
  CHECK(most_in(burst(clock, limits, 600, kPost), 1h) == 500);

  ManualClock clock2(kStart);
  td::SecondaryLimits spaced({.rest_points_per_minute = 0, .write_spacing = 1s}, clock2);
  const std::vector<SteadyTime> sent = burst(clock2, spaced, 200, kPost);
  for (std::size_t i = 1; i < sent.size(); ++i) CHECK(sent[i] - sent[i - 1] >= 1s);
  CHECK(most_in(sent, 1min) <= 80);
  CHECK(spaced.admit(101, kGet).go);  // a read is not a write
}

TEST_CASE("each limit is off at 0; DELETE is a write but creates nothing") {
  ManualClock clock(kStart);
  td::SecondaryLimits off({.max_in_flight = 0,
                           .rest_points_per_minute = 0,
                           .graphql_points_per_minute = 0,
                           .writes_per_minute = 0,
                           .writes_per_hour = 0},
                          clock);
  for (int i = 0; i < 5000; ++i) REQUIRE(off.admit(101, kPost).go);
  const td::RequestKind del = td::kind_of("DELETE", Api::rest, "");
  CHECK(del.write);
  CHECK_FALSE(del.creates_content);
  CHECK_FALSE(td::kind_of("HEAD", Api::rest, "").write);
  CHECK(td::kind_of("PATCH", Api::rest, "").creates_content);
}

TEST_CASE("unusable options are refused") {
  ManualClock clock(kStart);
  CHECK(td::check(td::SecondaryLimitOptions{}) == std::nullopt);
  CHECK(td::check(td::SecondaryLimitOptions{.read_points = 0}).has_value());
  CHECK(td::check(td::SecondaryLimitOptions{.rest_points_per_minute = 3}).has_value());
  CHECK_THROWS_AS(td::SecondaryLimits({.in_flight_recheck = 0s}, clock), std::invalid_argument);
  CHECK_FALSE(td::graphql_mutation(R"({"query": "{ mutation }"})"));
  CHECK_FALSE(td::graphql_mutation("mutation"));
}
