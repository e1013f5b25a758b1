// A MeterCollectable registered in a real prometheus::Registry, served by a
// real prometheus::Exposer on 127.0.0.1 (port 0: the kernel picks), scraped
// over HTTP with libcurl: the scrape says what Meter::metrics() and
// Meter::prometheus() say, and promtool finds both expositions clean with
// hostile hosts and resources (quotes, backslashes, newlines, UTF-8, control
// bytes).
#include <doctest/doctest.h>
#include <prometheus/counter.h>
#include <prometheus/exposer.h>
#include <prometheus/registry.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "forgemeter/meter.h"
#include "forgemeter/prometheus.h"
#include "forgemeter/testing/manual_clock.h"
#include "support/prometheus_server.h"
#include "support/promtool.h"

using namespace forgemeter;
using namespace std::chrono;

namespace {

UtcMillis at(int mm, int ss = 0) { return UtcMillis{sys_days{2026y / 9 / 30} + hours{14} + minutes{mm} + seconds{ss}}; }

// GET http://127.0.0.1:<port>/metrics; "" when it failed.
std::string scrape(int port) { return fmtest::http_get(port, "/metrics").value_or(""); }

struct Rig {
  ManualClock clock{at(0)};
  Meter meter{MeterOptions{.clock = &clock, .sink = [](std::string_view) {}}};

  void answer(std::string_view host, int status, const char* remaining, const char* resource = nullptr) {
    const RequestKey key{.host = host, .installation = 7, .lane = Lane("sweeper")};
    meter.record_request(key, clock.now());
    AnswerRecord a{.key = key, .seen = clock.now(), .status = status};
    a.headers.offer("X-RateLimit-Remaining", remaining);
    a.headers.offer("X-RateLimit-Limit", "5000");
    a.headers.offer("X-RateLimit-Reset", "1790784000");  // 2026-09-30T16:00:00Z
    if (resource) a.headers.offer("X-RateLimit-Resource", resource);
    meter.record_answer(a);
  }
};

}  // namespace

TEST_CASE("a scrape of a MeterCollectable served by an Exposer says what Meter::prometheus() says") {
  Rig rig;
  rig.answer("api.github.com", 200, "4999");
  rig.answer("api.github.com", 200, "4998");
  rig.answer("api.github.com", 304, "4998");
  rig.clock.advance(minutes{1});
  rig.answer("ghe.example", 200, "10");

  // A service's own registry beside the meter's collectable (prometheus-cpp
  // 1.0 registers a custom Collectable with the Exposer, not a Registry).
  auto registry = std::make_shared<prometheus::Registry>();
  prometheus::BuildCounter().Name("service_jobs_total").Help("a service's own").Register(*registry).Add({}).Increment();
  auto collectable = std::make_shared<MeterCollectable>(rig.meter);
  prometheus::Exposer exposer("127.0.0.1:0");
  exposer.RegisterCollectable(registry);
  exposer.RegisterCollectable(collectable);
  REQUIRE(exposer.GetListeningPorts().size() == 1);
  const std::string got = scrape(exposer.GetListeningPorts().front());
  CAPTURE(got);
  REQUIRE(!got.empty());
  for (const char* want : {
           "service_jobs_total 1\n",
           "# TYPE forgemeter_requests_total counter\n",
           "forgemeter_requests_total{host=\"api.github.com\",api=\"rest\",installation=\"7\",lane=\"sweeper\"} 3\n",
           "forgemeter_requests_total{host=\"ghe.example\",api=\"rest\",installation=\"7\",lane=\"sweeper\"} 1\n",
           "forgemeter_answers_total{host=\"api.github.com\",api=\"rest\",lane=\"sweeper\",class=\"2xx\"} 2\n",
           "forgemeter_answers_total{host=\"api.github.com\",api=\"rest\",lane=\"sweeper\",class=\"304\"} 1\n",
           // from 0 for every host and API with any answer, so increase() sees the first one
           "forgemeter_answers_total{host=\"api.github.com\",api=\"rest\",lane=\"sweeper\",class=\"limited\"} 0\n",
           "forgemeter_answers_total{host=\"ghe.example\",api=\"rest\",lane=\"sweeper\",class=\"secondary\"} 0\n",
           "# TYPE forgemeter_rate_limit_remaining gauge\n",
           "forgemeter_rate_limit_remaining{host=\"api.github.com\",api=\"rest\",installation=\"7\",resource=\"core\"} "
           "4998\n",
           "forgemeter_rate_limit_remaining{host=\"ghe.example\",api=\"rest\",installation=\"7\",resource=\"core\"} "
           "10\n",
           "forgemeter_rate_limit_limit{host=\"ghe.example\",api=\"rest\",installation=\"7\",resource=\"core\"} 5000\n",
           "forgemeter_rate_limit_reset_timestamp_seconds{host=\"ghe.example\",api=\"rest\",installation=\"7\","
           "resource=\"core\"} 1790784000\n",
       }) {
    CHECK_MESSAGE(got.find(want) != std::string::npos, want);
  }
  const std::string text = rig.meter.prometheus();
  CAPTURE(text);
  // One source of truth: every sample line of the text is in the scrape.
  for (std::size_t from = 0; from < text.size();) {
    const std::size_t end = text.find('\n', from);
    const std::string line = text.substr(from, end - from + 1);
    if (line[0] != '#') CHECK_MESSAGE(got.find(line) != std::string::npos, line);
    from = end + 1;
  }
  CHECK(fmtest::promtool_check_metrics(got) == "");
  CHECK(fmtest::promtool_check_metrics(text) == "");

  rig.answer("api.github.com", 403, "0");  // a spent budget: limited goes 0 -> 1
  const std::string after = scrape(exposer.GetListeningPorts().front());
  CHECK(after.find(
            "forgemeter_answers_total{host=\"api.github.com\",api=\"rest\",lane=\"sweeper\",class=\"limited\"} 1\n") !=
        std::string::npos);
}

TEST_CASE("hostile hosts and resources: promtool finds the scrape and the text clean") {
  Rig rig;
  for (const char* host :
       {"quo\"te.example", "back\\slash.example", "new\nline.example", "\xc3\xa9t\xc3\xa9.example",
        "ctl\x01\x1b[31m.example", "bad\xff\xfeutf8.example", "tab\there.example", "cr\rhere.example"}) {
    rig.answer(host, 200, "42", "co\"re\\\n\x01\xff");
  }
  auto collectable = std::make_shared<MeterCollectable>(rig.meter);
  prometheus::Exposer exposer("127.0.0.1:0");
  exposer.RegisterCollectable(collectable);
  const std::string got = scrape(exposer.GetListeningPorts().front());
  const std::string text = rig.meter.prometheus();
  CAPTURE(got);
  CAPTURE(text);
  REQUIRE(!got.empty());
  CHECK(fmtest::promtool_check_metrics(got) == "");
  CHECK(fmtest::promtool_check_metrics(text) == "");
  // Eight hosts, each its own series (none lost to escaping).
  std::size_t series = 0;
  for (std::size_t p = 0; (p = got.find("\nforgemeter_requests_total{", p)) != std::string::npos; ++p) ++series;
  CHECK(series == 8);
}

TEST_CASE("installations past MeterOptions::max_installations are counted under installation=\"other\"") {
  ManualClock clock{at(0)};
  Meter meter{MeterOptions{.clock = &clock, .sink = [](std::string_view) {}, .max_installations = 2}};
  for (std::uint64_t id : {11, 12, 13, 14, 11}) {
    const RequestKey key{.host = "api.github.com", .installation = id, .lane = Lane("sweeper")};
    meter.record_request(key, clock.now());
    AnswerRecord a{.key = key, .seen = clock.now(), .status = 200};
    const std::string remaining = std::to_string(100 + id);  // offer() keeps a view: it must outlive the record
    a.headers.offer("X-RateLimit-Remaining", remaining);
    a.headers.offer("X-RateLimit-Limit", "5000");
    meter.record_answer(a);
  }
  meter.record_request({.host = "api.github.com"}, clock.now());  // installation 0 (none) is never folded
  const std::string text = meter.prometheus();
  CAPTURE(text);
  const std::string lane = "api=\"rest\",installation=\"";
  for (const std::string want : {
           "forgemeter_requests_total{host=\"api.github.com\"," + lane + "11\",lane=\"sweeper\"} 2\n",
           "forgemeter_requests_total{host=\"api.github.com\"," + lane + "12\",lane=\"sweeper\"} 1\n",
           "forgemeter_requests_total{host=\"api.github.com\"," + lane + "other\",lane=\"sweeper\"} 2\n",
           "forgemeter_requests_total{host=\"api.github.com\"," + lane + "0\",lane=\"other\"} 1\n",
           "forgemeter_rate_limit_lowest_remaining{host=\"api.github.com\"," + lane +
               "other\",resource=\"core\"} 113\n",
       }) {
    CHECK_MESSAGE(text.find(want) != std::string::npos, want);
  }
  CHECK(text.find(lane + "13\"") == std::string::npos);
  CHECK(text.find(lane + "14\"") == std::string::npos);
  CHECK(fmtest::promtool_check_metrics(text) == "");
}

TEST_CASE("what 10 000 installations cost: 5 series each, bounded by max_installations") {
  for (const std::size_t bound : {std::size_t{10'000}, std::size_t{1000}}) {
    ManualClock clock{at(0)};
    Meter meter{MeterOptions{.clock = &clock, .sink = [](std::string_view) {}, .max_installations = bound}};
    for (std::uint64_t id = 1; id <= 10'000; ++id) {
      const RequestKey key{.host = "api.github.com", .installation = id, .lane = Lane("sweeper")};
      meter.record_request(key, clock.now());
      AnswerRecord a{.key = key, .seen = clock.now(), .status = 200};
      a.headers.offer("X-RateLimit-Remaining", "4000");
      a.headers.offer("X-RateLimit-Limit", "5000");
      a.headers.offer("X-RateLimit-Reset", "1790784000");
      meter.record_answer(a);
    }
    const MeterMetrics m = meter.metrics();
    std::size_t series = 0;
    for (const auto& f : m.families) series += f.samples.size();
    const std::string text = meter.prometheus();
    MESSAGE("max_installations ", bound, ": ", series, " series, ", text.size(), " bytes of text");
    // requests, remaining, lowest, limit, reset per named installation, and
    // the 3 answers; past the bound 5 for installation="other", and 1 more
    // request series: the hour's table holds 4096 keys, later ones under
    // `(other hosts)` (MeterOptions::max_hosts), where "other" is folded too.
    CHECK(series == (bound == 10'000 ? 50'003 : 5 * bound + 5 + 1 + 3));
  }
}

TEST_CASE("the exhaustion gauge is there while the budget falls fast, gone when it lasts to its reset") {
  ManualClock clock{at(30)};  // 14:30Z
  Meter meter{MeterOptions{.clock = &clock, .sink = [](std::string_view) {}}};
  auto read = [&](const char* remaining, const char* reset) {
    const RequestKey key{.host = "api.github.com", .installation = 7};
    meter.record_request(key, clock.now());
    AnswerRecord a{.key = key, .seen = clock.now(), .status = 200};
    a.headers.offer("X-RateLimit-Remaining", remaining);
    a.headers.offer("X-RateLimit-Limit", "5000");
    a.headers.offer("X-RateLimit-Reset", reset);
    meter.record_answer(a);
  };
  const std::string gauge =
      "forgemeter_rate_limit_exhaustion_timestamp_seconds{host=\"api.github.com\",api=\"rest\",installation=\"7\","
      "resource=\"core\"} ";
  // 4000 of 5000 spent in the 30 min since the window began (14:00): the
  // 1000 left last 450 s, to 14:37:30Z, before the reset at 15:00Z.
  read("1000", "1790780400");
  const std::string falling = meter.prometheus();
  CAPTURE(falling);
  CHECK(falling.find(gauge + "1790779050\n") != std::string::npos);
  CHECK(fmtest::promtool_check_metrics(falling) == "");
  clock.advance(minutes{31});  // 15:01Z: that window reset with no later reading: no projection
  CHECK(meter.prometheus().find(gauge) == std::string::npos);
  clock.advance(minutes{9});  // 15:10Z: 100 spent in 10 min of the next window lasts past 16:00Z
  read("4900", "1790784000");
  const std::string lasting = meter.prometheus();
  CAPTURE(lasting);
  CHECK(lasting.find(gauge) == std::string::npos);
  CHECK(lasting.find("# TYPE forgemeter_rate_limit_exhaustion_timestamp_seconds gauge\n") != std::string::npos);
  read("100", "1790784000");  // 4900 spent in 10 min: out in 13 s, at 15:10:13Z
  CHECK(meter.prometheus().find(gauge + "1790781013\n") != std::string::npos);
}

TEST_CASE("answers are counted per lane; the hourly answers line still sums the lanes") {
  ManualClock clock{at(0)};
  std::vector<std::string> lines;
  Meter meter{MeterOptions{.clock = &clock, .sink = [&](std::string_view l) { lines.emplace_back(l); }}};
  for (const char* lane : {"sweeper", "sweeper", "triage"}) {
    const RequestKey key{.host = "api.github.com", .lane = Lane(lane)};
    meter.record_request(key, clock.now());
    meter.record_answer({.key = key, .seen = clock.now(), .status = 200});
  }
  const std::string text = meter.prometheus();
  CAPTURE(text);
  const std::string head = "forgemeter_answers_total{host=\"api.github.com\",api=\"rest\",lane=";
  CHECK(text.find(head + "\"sweeper\",class=\"2xx\"} 2\n") != std::string::npos);
  CHECK(text.find(head + "\"triage\",class=\"2xx\"} 1\n") != std::string::npos);
  CHECK(text.find(head + "\"triage\",class=\"secondary\"} 0\n") != std::string::npos);
  meter.flush();
  const bool summed = std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.starts_with("forge HTTP answers:") && l.find("api.github.com rest 2xx=3") != std::string::npos;
  });
  CHECK_MESSAGE(summed, lines.back());
}

namespace {

// Each sample line of an exposition ("name{labels} value") starting with `prefix`: series -> value.
std::map<std::string, double> samples(const std::string& text, std::string_view prefix) {
  std::map<std::string, double> out;
  for (std::size_t from = 0; from < text.size();) {
    std::size_t end = text.find('\n', from);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(from, end - from);
    from = end + 1;
    if (!line.starts_with(prefix)) continue;
    const std::size_t sp = line.rfind(' ');
    out[line.substr(0, sp)] = std::stod(line.substr(sp + 1));
  }
  return out;
}

}  // namespace

TEST_CASE("the request-duration histogram: the scrape's buckets, sum and count are the text's; promtool clean") {
  ManualClock clock{at(0)};
  Meter meter{MeterOptions{.clock = &clock, .sink = [](std::string_view) {}}};
  const std::string hostile = "quo\"te\\new\nline\x01\xff.example";
  auto timed = [&](const std::string& host, int status, Duration elapsed) {
    const RequestKey key{.host = host, .installation = 7, .lane = Lane("sweeper")};
    meter.record_request(key, clock.now());
    meter.record_answer({.key = key, .seen = clock.now(), .status = status, .elapsed = elapsed});
  };
  timed("api.github.com", 200, milliseconds(40));
  timed("api.github.com", 200, milliseconds(100));  // on the bound: le="0.1"
  timed("api.github.com", 200, milliseconds(2'600));
  timed("api.github.com", 200, seconds(31));  // +Inf only
  timed("api.github.com", 403, milliseconds(90));
  timed(hostile, 200, milliseconds(300));
  timed(hostile, kNoAnswer, seconds(10));  // no answer: not timed

  auto collectable = std::make_shared<MeterCollectable>(meter);
  prometheus::Exposer exposer("127.0.0.1:0");
  exposer.RegisterCollectable(collectable);
  const std::string got = scrape(exposer.GetListeningPorts().front());
  const std::string text = meter.prometheus();
  CAPTURE(got);
  CAPTURE(text);
  REQUIRE(!got.empty());
  CHECK(got.find("# TYPE forgemeter_request_duration_seconds histogram\n") != std::string::npos);
  const std::string series = "forgemeter_request_duration_seconds";
  const auto scraped = samples(got, series);
  const auto written = samples(text, series);
  CHECK(scraped.size() == written.size());
  CHECK(written.size() == 3 * 12);  // 3 host/API/class series: 9 buckets, +Inf, sum, count each
  for (const auto& [name, value] : written) {
    CAPTURE(name);
    REQUIRE(scraped.contains(name));
    CHECK(scraped.at(name) == doctest::Approx(value).epsilon(1e-9));
  }
  const std::string ok = R"(host="api.github.com",api="rest",class="2xx")";
  const std::pair<const char*, double> want[] = {{"0.05", 1}, {"0.1", 2}, {"0.25", 2}, {"1", 2},
                                                 {"2.5", 2},  {"5", 3},   {"30", 3},   {"+Inf", 4}};
  for (const auto& [le, n] : want) {
    CAPTURE(le);
    CHECK(scraped.at(series + "_bucket{" + ok + ",le=\"" + le + "\"}") == n);
  }
  CHECK(scraped.at(series + "_count{" + ok + "}") == 4);
  CHECK(scraped.at(series + "_sum{" + ok + "}") == doctest::Approx(33.74));
  CHECK(scraped.at(series + "_count{host=\"api.github.com\",api=\"rest\",class=\"4xx\"}") == 1);
  CHECK(got.find("class=\"none\",le=") == std::string::npos);
  CHECK(fmtest::promtool_check_metrics(got) == "");
  CHECK(fmtest::promtool_check_metrics(text) == "");
}
