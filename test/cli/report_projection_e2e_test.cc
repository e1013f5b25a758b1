// "When will it run out?" as a process: a log written by the library's Meter
// at a known rate, reported with --now inside its last hour; the startup
// burst flag; and what the report says when no projection can be made.
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "forgemeter/meter.h"
#include "report_run.h"

using namespace forgemeter;
using namespace fmtest;
using namespace std::chrono;

namespace {

class SetClock : public Clock {
 public:
  UtcMillis t{};
  UtcMillis now() const override { return t; }
  SteadyTime steady_now() const override { return {}; }
  bool wait_until(SteadyTime, std::stop_token) const override { return true; }
};

const sys_seconds kWindowStart = sys_days{2026y / 9 / 30} + 14h + 10min;  // the budget refilled here

// One replica's log: from 14:10:00Z (its window's start; reset 15:10:00Z),
// one answer a second for 1000 s, each reading 4 less of 5000 (the forge's
// count: other clients spend too), then a stop at 14:26:40Z. The budget line
// reads `1000 of 5000 at 14:26:40Z (resets 15:10:00Z)`: 4000 spent in 1000 s,
// 4 a second; the last 1000 last 250 s more: out at 14:30:50Z, 39m10s before
// the reset.
std::string metered_log() {
  SetClock clock;
  clock.t = kWindowStart;
  std::vector<std::string> lines;
  {
    Meter meter(MeterOptions{&clock, [&](std::string_view l) { lines.emplace_back(l); }});
    const std::string reset = fmt::to_string((kWindowStart + 1h).time_since_epoch().count());
    const RequestKey key{"api.github.com", Api::rest, 101, Lane("sweeper")};
    for (int k = 1; k <= 1000; ++k) {
      clock.t = kWindowStart + seconds(k);
      meter.record_request(key, clock.t);
      const std::string remaining = fmt::to_string(5000 - 4 * k);
      AnswerRecord answer{key, clock.t, 200, {}};
      answer.headers.limit = "5000";
      answer.headers.remaining = remaining;
      answer.headers.reset = reset;
      meter.record_answer(answer);
    }
    meter.flush();
  }
  std::string text;
  for (const auto& l : lines) text += "2026-09-30T14:26:40Z INFO " + l + "\n";
  return text;
}

}  // namespace

TEST_CASE("the hour in progress: installation 101 runs out at 14:30:50Z at the rate its window saw") {
  TempDir dir;
  const std::string log = dir.file("replica.log");
  const std::string text = metered_log();
  REQUIRE(text.find("1000 of 5000 at 14:26:40Z (resets 15:10:00Z)") != std::string::npos);
  REQUIRE(text.find("until 14:26:40Z, stopping") != std::string::npos);
  write_file(log, text);

  auto r = report({"--now", "2026-09-30T14:35Z", log});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("hour ending 2026-09-30T15:00Z in progress at 2026-09-30T14:35:00Z") != std::string::npos);
  CHECK(r.out.find("at this rate installation 101 runs out at 14:30:50Z, 39m10s before its reset at 15:10:00Z "
                   "(api.github.com rest: spent 4000 of 5000 in 16m40s, 240.0/min; 1000 left at 14:26:40Z)") !=
        std::string::npos);

  auto json = report({"--format", "json", "--now", "2026-09-30T14:35Z", log});
  CHECK(json.out.find(
            R"("in_progress":true,"projections":[{"host":"api.github.com","api":"rest","installation":101,)"
            R"("resource":"core","remaining":1000,"at":"2026-09-30T14:26:40Z","limit":5000,)"
            R"("resets":"2026-09-30T15:10:00Z","spent":4000,"elapsed_seconds":1000,"per_minute":240.000,)"
            R"("out":false,"runs_out_at":"2026-09-30T14:30:50Z","left_at_reset":null,"no_projection":null}])") !=
        std::string::npos);

  auto html = report({"--format", "html", "--now", "2026-09-30T14:35Z", log});
  CHECK(html.out.find("<h2>When will it run out?</h2>") != std::string::npos);
  CHECK(html.out.find("runs out at 14:30:50Z, 39m10s before its reset at 15:10:00Z") != std::string::npos);

  // Not in progress: --now after the hour, or before it.
  for (const char* now : {"2026-09-30T15:00Z", "2026-09-30T13:59:59Z"}) {
    auto later = report({"--format", "json", "--now", now, log});
    CHECK(later.out.find(R"("in_progress":false,"projections":[])") != std::string::npos);
  }
  // --budget sets the limit the window spent from: 3500 spent in 1000 s, the last 1000 last 286 s (rounded up).
  auto slower = report({"--budget", "4500", "--now", "2026-09-30T14:35Z", log});
  CHECK(slower.out.find("at this rate installation 101 runs out at 14:31:26Z") != std::string::npos);
}

TEST_CASE("no projection without a reset, or once the reading's window has reset") {
  TempDir dir;
  const std::string log = dir.file("replica.log");
  write_file(log,
             "forge rate limit: lowest remaining in the hour ending 2026-09-30T15:00Z (until 14:40:00Z, stopping) — "
             "api.github.com rest installation 101: 2000 of 5000 at 14:30:00Z, "
             "api.github.com rest installation 202: 2000 of 5000 at 14:30:00Z (resets 14:38:00Z), "
             "api.github.com rest installation 303: 4500 of 5000 at 14:30:00Z (resets 15:20:00Z)\n");
  auto r = report({"--now", "2026-09-30T14:45Z", log});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("no projection for installation 101: the reading has no reset time") != std::string::npos);
  CHECK(r.out.find("no projection for installation 202: its window reset at 14:38:00Z") != std::string::npos);
  // 303: 500 spent in its first 10 minutes; the 50 minutes to its reset spend 2500 more: 2000 left then.
  CHECK(r.out.find("at this rate installation 303 lasts to its reset at 15:20:00Z with 2000 left") !=
        std::string::npos);
}

TEST_CASE("startup burst: a budget out within --burst-within of its reset is flagged, in every hour") {
  TempDir dir;
  const std::string log = dir.file("replica.log");
  write_file(log,
             "forge rate limit: lowest remaining in the hour ending 2026-09-30T15:00Z — "
             "api.github.com rest installation 101: 0 of 5000 at 14:04:00Z (resets 15:00:00Z)\n"
             "forge rate limit: lowest remaining in the hour ending 2026-09-30T16:00Z — "
             "api.github.com rest installation 101: 0 of 5000 at 15:48:09Z (resets 16:00:00Z)\n");
  auto r = report({log});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("startup bursts (an hourly budget out within 10m of its reset)") != std::string::npos);
  CHECK(r.out.find("hour ending 2026-09-30T15:00Z: installation 101 ran out at 14:04:00Z, 4m after its reset at "
                   "14:00:00Z (startup burst)") != std::string::npos);
  CHECK(r.out.find("hour ending 2026-09-30T16:00Z: installation") == std::string::npos);  // 48m after: not a burst
  auto json = report({"--format", "json", log});
  CHECK(
      json.out.find(R"("startup_bursts":[{"host":"api.github.com","api":"rest","installation":101,"resource":"core",)"
                    R"("window_start":"2026-09-30T14:00:00Z","out_at":"2026-09-30T14:04:00Z","after_seconds":240}])") !=
      std::string::npos);
  CHECK(json.out.find(R"("startup_bursts":[]})") != std::string::npos);  // the second hour
  // The page lists it under "When will it run out?", marked as a burst, the other hour not.
  auto html = report({"--format", "html", log});
  REQUIRE(html.exit_code == 0);
  const auto item = html.out.find("<li class=burst");
  REQUIRE(item != std::string::npos);
  CHECK(html.out.find("<h2>When will it run out?</h2>") < item);
  CHECK(html.out.find(">hour ending 2026-09-30T15:00Z: installation 101 ran out at 14:04:00Z, 4m after its reset at "
                      "14:00:00Z (startup burst)</li>",
                      item) != std::string::npos);
  CHECK(html.out.find("<li class=burst", item + 1) == std::string::npos);
  auto narrow = report({"--burst-within", "3m", log});
  CHECK(narrow.out.find("startup burst") == std::string::npos);
  CHECK(report({"--burst-within", "2h", log}).exit_code == 2);
}
