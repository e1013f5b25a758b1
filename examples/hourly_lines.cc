// Shows the hourly lines a Meter writes, over three simulated hours driven by
// a ManualClock: the process "starts" at 14:37, so the first hour says
// `counted from`; the last hour is cut short by the stop (`until …, stopping`).
// Then reads the lines back as forgemeter/line_view.h shows, and checks that
// they count every request made.
//
//   build/<dir>/examples/example_hourly_lines
#include <forgemeter/testing/manual_clock.h>
#include <forgemeter/meter.h>

#include <forgemeter/line_view.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

using namespace std::chrono;

int main() {
  forgemeter::ManualClock clock{forgemeter::UtcMillis{sys_days{2026y / 9 / 30} + 14h + 37min}};
  std::vector<std::string> lines;
  forgemeter::Meter meter({.clock = &clock, .sink = [&](std::string_view line) {
                             std::printf("%.*s\n", static_cast<int>(line.size()), line.data());
                             lines.emplace_back(line);
                           }});
  std::uint64_t made = 0;
  const forgemeter::Lane sweeper{"merge-gate-sweeper"};
  std::uint64_t remaining = 5000;

  // Every simulated 20 s for 3 h 10 min: the sweeper reads a pull request (its
  // installation's budget), every minute an untagged GraphQL query, every
  // 5 minutes a download redirected to another host (two hops, two requests).
  for (int tick = 0; tick < 3 * 180 + 30; ++tick) {
    const forgemeter::RequestKey pull{.host = "api.github.com", .installation = 101, .lane = sweeper};
    meter.record_request(pull);
    ++made;
    const auto left = std::to_string(remaining--);
    const auto reset = std::to_string(duration_cast<seconds>((floor<hours>(clock.now()) + 1h).time_since_epoch()).count());
    forgemeter::AnswerRecord answer{.key = pull, .seen = clock.now(), .status = tick % 4 == 0 ? 304 : 200};
    answer.headers.offer("X-RateLimit-Limit", "5000");
    answer.headers.offer("X-RateLimit-Remaining", left);
    answer.headers.offer("X-RateLimit-Reset", reset);
    meter.record_answer(answer);

    if (tick % 3 == 0) {
      const forgemeter::RequestKey query{.host = "api.github.com", .api = forgemeter::Api::graphql};
      meter.record_request(query);
      ++made;
      meter.record_answer({.key = query, .seen = clock.now(), .status = tick % 60 == 0 ? 502 : 200});
    }
    if (tick % 15 == 0) {
      const forgemeter::RequestKey hop{.host = "codeload.github.com", .lane = sweeper};
      meter.record_request(pull);
      meter.record_answer({.key = pull, .seen = clock.now(), .status = 302});
      meter.record_request(hop);
      made += 2;
      meter.record_answer({.key = hop, .seen = clock.now(), .status = 200});
    }
    clock.advance(20s);
    if (clock.now().time_since_epoch() % 1h < 20s) remaining = 5000;  // the budget resets on the hour
  }
  meter.flush();  // the stop: the hour being counted is written with `until …, stopping`
  std::fputs("\nPrometheus view (cumulative):\n", stdout);
  std::fputs(meter.prometheus().c_str(), stdout);

  std::uint64_t counted = 0;
  auto use = [&](const forgemeter::LineView& line) {
    if (const auto* count = std::get_if<forgemeter::CountLineView>(&line)) counted += count->total;
  };
  // --- as in forgemeter/line_view.h ---------------------------------------------
  forgemeter::LineReader reader;
  for (std::string_view log_line : lines)
    if (reader.scan(log_line) == forgemeter::LineScan::Kind::line) use(reader.line());
  // -----------------------------------------------------------------------------
  std::printf("\nread back: %llu requests counted of %llu made\n", static_cast<unsigned long long>(counted),
              static_cast<unsigned long long>(made));
  return counted == made ? 0 : 1;
}
