// The sink: order, failures, and not stalling request threads; the Prometheus view.
#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <stdexcept>
#include <thread>

#include "meter/prometheus.h"
#include "meter_fixture.h"

using namespace forgemeter;
using namespace fmtest;

namespace {
const Lane kLane{"l"};
}  // namespace

TEST_CASE("a sink that throws loses its lines, never the next hour's counts nor the caller") {
  ManualClock clock(at(14));
  int calls = 0;
  Lines kept;
  {
    Meter meter({.clock = &clock, .sink = [&](std::string_view l) {
                   if (++calls == 1) throw std::runtime_error("disk full");
                   kept.emplace_back(l);
                 }});
    meter.record_request({.host = "h", .lane = kLane}, at(14, 1));
    meter.record_request({.host = "h", .lane = kLane}, at(15, 1));  // the turn's sink call throws
    meter.record_request({.host = "h", .lane = kLane}, at(15, 2));
    clock.set_wall(at(16, 30));
  }
  CHECK(calls == 2);
  CHECK(kept == Lines{"forge HTTP: 2 requests in the hour ending 2026-09-30T16:00Z" + D + "h rest l=2"});
}

TEST_CASE("a slow sink does not stall other request threads") {
  ManualClock clock(at(14));
  std::mutex mu;
  std::condition_variable cv;
  bool in_sink = false, release = false, sink_gave_up = false;
  Lines got;
  Meter meter({.clock = &clock, .sink = [&](std::string_view l) {
                 std::unique_lock lock(mu);
                 got.emplace_back(l);
                 in_sink = true;
                 cv.notify_all();
                 // Held until the main thread has recorded. Had those records
                 // waited for this sink, nobody would release it: it gives up
                 // after 10 s and says so, which fails the test.
                 sink_gave_up = !cv.wait_for(lock, std::chrono::seconds(10), [&] { return release; });
               }});
  meter.record_request({.host = "h", .lane = kLane}, at(14, 1));
  std::thread turner([&] { meter.record_request({.host = "h", .lane = kLane}, at(15, 1)); });
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return in_sink; });
  }
  // The turn is inside the sink: these records of the new hour must not wait for it.
  for (int i = 0; i < 1000; ++i) meter.record_request({.host = "h", .lane = kLane}, at(15, 2));
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  turner.join();
  CHECK_FALSE(sink_gave_up);  // the 1000 records returned while the sink still held the turn's line
  clock.set_wall(at(16, 30));
  meter.flush();
  std::lock_guard lock(mu);
  CHECK(got == Lines{"forge HTTP: 1 requests in the hour ending 2026-09-30T15:00Z" + D + "h rest l=1",
                     "forge HTTP: 1001 requests in the hour ending 2026-09-30T16:00Z" + D + "h rest l=1001"});
}

TEST_CASE("prometheus: cumulative counters across hours, the live hour included, gauges last and lowest") {
  ManualClock clock(at(14));
  Meter meter({.clock = &clock, .sink = [](std::string_view) {}});
  const RequestKey key{.host = "api.github.com", .installation = 101, .lane = kLane};
  auto answer = [&](UtcMillis t, const char* remaining, int status = 200) {
    AnswerRecord a{.key = key, .seen = t, .status = status};
    a.headers.offer("X-RateLimit-Remaining", remaining);
    meter.record_answer(a);
  };
  meter.record_request(key, at(14, 1));
  answer(at(14, 1), "40");
  answer(at(14, 2), "30");
  meter.record_request(key, at(15, 1));
  meter.record_request({.host = "h", .lane = Lane::other()}, at(15, 1));
  answer(at(15, 1), "45", 304);
  meter.record_refused(key, at(15, 2));
  AnswerRecord search{.key = key, .seen = at(15, 3), .status = 403};
  search.headers.offer("X-RateLimit-Remaining", "0");
  search.headers.offer("X-RateLimit-Resource", "search");
  meter.record_answer(search);  // limited, on its own gauge: core's stay 45 and 30
  AnswerRecord secondary{.key = key, .seen = at(15, 4), .status = 429};
  meter.record_answer(secondary);
  const std::string text = meter.prometheus();
  CAPTURE(text);
  for (const char* want : {
           "# TYPE forgemeter_requests_total counter\n",
           "forgemeter_requests_total{host=\"api.github.com\",api=\"rest\",installation=\"101\",lane=\"l\"} 2\n",
           "forgemeter_requests_total{host=\"h\",api=\"rest\",installation=\"0\",lane=\"other\"} 1\n",
           "# TYPE forgemeter_answers_total counter\n",
           "forgemeter_answers_total{host=\"api.github.com\",api=\"rest\",lane=\"l\",class=\"2xx\"} 2\n",
           "forgemeter_answers_total{host=\"api.github.com\",api=\"rest\",lane=\"l\",class=\"304\"} 1\n",
           "forgemeter_answers_total{host=\"api.github.com\",api=\"rest\",lane=\"l\",class=\"refused\"} 1\n",
           "# TYPE forgemeter_rate_limit_remaining gauge\n",
           "forgemeter_rate_limit_remaining{host=\"api.github.com\",api=\"rest\",installation=\"101\",resource="
           "\"core\"} 45\n",
           "forgemeter_rate_limit_lowest_remaining{host=\"api.github.com\",api=\"rest\",installation=\"101\",resource="
           "\"core\"} 30\n",
           "forgemeter_rate_limit_remaining{host=\"api.github.com\",api=\"rest\",installation=\"101\",resource="
           "\"search\"} 0\n",
           "forgemeter_rate_limit_lowest_remaining{host=\"api.github.com\",api=\"rest\",installation=\"101\",resource="
           "\"search\"} 0\n",
           "forgemeter_answers_total{host=\"api.github.com\",api=\"rest\",lane=\"l\",class=\"secondary\"} 1\n",
       }) {
    CHECK_MESSAGE(text.find(want) != std::string::npos, want);
  }
  CHECK(meter.prometheus() == text);  // reading it changes nothing
}

TEST_CASE("the default sink writes each line to stderr with a newline; an empty MeterOptions works") {
  Meter meter;
  CHECK(&meter.clock() == &forgemeter::system_clock());
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const int saved = ::dup(STDERR_FILENO);
  ::dup2(fds[1], STDERR_FILENO);
  const auto sink = stderr_sink();
  sink("forge HTTP: 1 requests");
  sink("second");
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  ::close(fds[1]);
  char buf[128];
  const auto n = ::read(fds[0], buf, sizeof buf);
  ::close(fds[0]);
  CHECK(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0) == "forge HTTP: 1 requests\nsecond\n");
}

TEST_CASE("prometheus: label values are escaped as the exposition format asks") {
  // Hosts reach the view in display form (no quote, backslash or newline can);
  // the escaping is the second line of defence, tested on the view itself.
  meter::Cumulative view(4);
  meter::HourLines hour;
  hour.count.entries.push_back({"a\"b\\c\nd", Api::graphql, 7, "l", 3});
  view.add(hour);
  CHECK(meter::exposition(view.metrics(UtcMillis{}))
            .find("forgemeter_requests_total{host=\"a\\\"b\\\\c\\nd\",api=\"graphql\",installation=\"7\","
                  "lane=\"l\"} 3\n") != std::string::npos);
}
