// Shows the hourly lines a Meter writes, over three simulated hours driven by
// a ManualClock: the process "starts" at 14:37, so the first hour says
// `counted from`; the last hour is cut short by the stop (`until …, stopping`).
//
//   build/<dir>/examples/example_hourly_lines
#include <forgemeter/clock.h>
#include <forgemeter/meter.h>

#include <chrono>
#include <cstdio>
#include <string>

using namespace std::chrono;

int main() {
  forgemeter::ManualClock clock{forgemeter::UtcMillis{sys_days{2026y / 9 / 30} + 14h + 37min}};
  forgemeter::Meter meter({.clock = &clock, .sink = [](std::string_view line) {
                             std::printf("%.*s\n", static_cast<int>(line.size()), line.data());
                           }});
  const forgemeter::Lane sweeper{"merge-gate-sweeper"}, triage{"triage"};
  std::uint64_t remaining = 5000;

  // One request and its answer, every simulated 20 seconds, for 3 h 10 min.
  for (int tick = 0; tick < 3 * 180 + 30; ++tick) {
    const bool graphql = tick % 7 == 0;
    const forgemeter::RequestKey key{.host = tick % 11 == 0 ? "uploads.github.com" : "api.github.com",
                                     .api = graphql ? forgemeter::Api::graphql : forgemeter::Api::rest,
                                     .installation = tick % 3 == 0 ? 0u : 101u,
                                     .lane = tick % 5 == 0 ? forgemeter::Lane::other() : (tick % 2 ? sweeper : triage)};
    meter.record_request(key);

    forgemeter::AnswerRecord answer{.key = key, .seen = clock.now(), .status = tick % 13 == 0 ? 304 : 200};
    const auto reset = std::to_string(duration_cast<seconds>((floor<hours>(clock.now()) + 1h).time_since_epoch()).count());
    const auto left = std::to_string(remaining);
    if (key.installation != 0) {
      answer.headers.offer("X-RateLimit-Limit", "5000");
      answer.headers.offer("X-RateLimit-Remaining", left);
      answer.headers.offer("X-RateLimit-Reset", reset);
      remaining -= 7;
    }
    meter.record_answer(answer);
    clock.advance(20s);
    if (clock.now().time_since_epoch() % 1h < 20s) remaining = 5000;  // the budget resets on the hour
  }
  meter.flush();  // the stop: the hour being counted is written with `until …, stopping`
  std::fputs("\nPrometheus view (cumulative):\n", stdout);
  std::fputs(meter.prometheus().c_str(), stdout);
}
