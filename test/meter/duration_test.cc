// forgemeter_request_duration_seconds in Meter::prometheus(): the buckets,
// sum and count of known durations, the bounds themselves (le is "at most"),
// what is not timed (no answer, no elapsed time), host folding, hostile hosts
// and MeterOptions::request_durations off.
#include <doctest/doctest.h>

#include "meter_fixture.h"

using namespace forgemeter;
using namespace fmtest;

namespace {

const Lane kSweeper{"sweeper"};
constexpr const char* kLe[] = {"0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "30", "+Inf"};

void answer(Meter& m, std::string_view host, int status, Duration elapsed, Lane lane = kSweeper, Api api = Api::rest) {
  const RequestKey key{.host = host, .api = api, .lane = lane};
  m.record_request(key, at(14, 1));
  m.record_answer({.key = key, .seen = at(14, 2), .status = status, .elapsed = elapsed});
}

// The histogram's lines for `labels` (host, api and class, escaped), as the text must hold them.
std::string expected(std::string_view labels, const std::array<int, 10>& cumulative, std::string_view sum) {
  std::string out;
  for (std::size_t b = 0; b < 10; ++b)
    out += "forgemeter_request_duration_seconds_bucket{" + std::string(labels) + ",le=\"" + kLe[b] + "\"} " +
           std::to_string(cumulative[b]) + "\n";
  out += "forgemeter_request_duration_seconds_sum{" + std::string(labels) + "} " + std::string(sum) + "\n";
  out +=
      "forgemeter_request_duration_seconds_count{" + std::string(labels) + "} " + std::to_string(cumulative[9]) + "\n";
  return out;
}

}  // namespace

TEST_CASE("request durations: cumulative buckets, le at most its bound, sum and count per host, API and class") {
  Rig rig(at(14));
  using std::chrono::milliseconds;
  using std::chrono::nanoseconds;
  // Exactly on a bound counts in it; a nanosecond past goes to the next.
  answer(*rig.meter, "api.github.com", 200, milliseconds(50));
  answer(*rig.meter, "api.github.com", 200, milliseconds(50) + nanoseconds(1));
  answer(*rig.meter, "api.github.com", 200, milliseconds(0));
  answer(*rig.meter, "api.github.com", 200, milliseconds(1000));
  answer(*rig.meter, "api.github.com", 200, milliseconds(30'000));
  answer(*rig.meter, "api.github.com", 200, milliseconds(30'001), Lane::other());  // lanes are summed
  answer(*rig.meter, "api.github.com", 502, milliseconds(7'000));
  answer(*rig.meter, "api.github.com", 200, microseconds(1'500), kSweeper, Api::graphql);
  answer(*rig.meter, "api.github.com", kNoAnswer, milliseconds(20));  // no answer: not timed
  answer(*rig.meter, "api.github.com", 200, kUnknownElapsed);         // not measured: not timed
  answer(*rig.meter, "api.github.com", 404, Duration(-5));            // negative: not measured
  const std::string text = rig.meter->prometheus();
  CAPTURE(text);
  CHECK(text.find("# TYPE forgemeter_request_duration_seconds histogram\n") != std::string::npos);
  CHECK(text.find(expected(R"(host="api.github.com",api="rest",class="2xx")", {2, 3, 3, 3, 4, 4, 4, 4, 5, 6},
                           "61.101000")) != std::string::npos);
  CHECK(text.find(expected(R"(host="api.github.com",api="rest",class="5xx")", {0, 0, 0, 0, 0, 0, 0, 1, 1, 1},
                           "7.000000")) != std::string::npos);
  CHECK(text.find(expected(R"(host="api.github.com",api="graphql",class="2xx")", {1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                           "0.001500")) != std::string::npos);
  // Classes without a timed answer have no series: none, and the 4xx measured as negative.
  CHECK(text.find(R"(class="none",le=)") == std::string::npos);
  CHECK(text.find(R"(class="4xx",le=)") == std::string::npos);
  // The answers themselves are all counted.
  CHECK(text.find(R"(forgemeter_answers_total{host="api.github.com",api="rest",lane="sweeper",class="2xx"} 6)") !=
        std::string::npos);
}

TEST_CASE("request durations: hostile hosts escaped, hosts past the bound under (other hosts), across hours") {
  Rig rig(at(14), 2);
  answer(*rig.meter, "evil.com\n, x \"q\"\\", 200, std::chrono::milliseconds(120));
  answer(*rig.meter, "api.github.com", 200, std::chrono::milliseconds(80));
  answer(*rig.meter, "third.example", 200, std::chrono::milliseconds(300));  // past max_hosts = 2
  rig.clock.set_wall(at(15));
  rig.meter->flush();  // the hour is written: the histogram is cumulative across it
  answer(*rig.meter, "api.github.com", 200, std::chrono::milliseconds(90));
  const std::string text = rig.meter->prometheus();
  CAPTURE(text);
  CHECK(text.find(expected(R"(host="evil.com%0A%2C%20x%20%22q%22%5C",api="rest",class="2xx")",
                           {0, 0, 1, 1, 1, 1, 1, 1, 1, 1}, "0.120000")) != std::string::npos);
  CHECK(text.find(expected(R"(host="api.github.com",api="rest",class="2xx")", {0, 2, 2, 2, 2, 2, 2, 2, 2, 2},
                           "0.170000")) != std::string::npos);
  CHECK(text.find(expected(R"x(host="(other hosts)",api="rest",class="2xx")x", {0, 0, 0, 1, 1, 1, 1, 1, 1, 1},
                           "0.300000")) != std::string::npos);
}

TEST_CASE("MeterOptions::request_durations off: no histogram family, answers still counted") {
  ManualClock clock{at(14)};
  Meter meter{MeterOptions{.clock = &clock, .sink = [](std::string_view) {}, .request_durations = false}};
  answer(meter, "api.github.com", 200, std::chrono::milliseconds(80));
  const std::string text = meter.prometheus();
  CAPTURE(text);
  CHECK(text.find("forgemeter_request_duration_seconds") == std::string::npos);
  CHECK(text.find(R"(forgemeter_answers_total{host="api.github.com",api="rest",lane="sweeper",class="2xx"} 1)") !=
        std::string::npos);
  for (const auto& f : meter.metrics().families) CHECK(f.type != MetricType::histogram);
}
