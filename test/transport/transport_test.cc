// Transport basics against the loopback forge: answers, counting, reuse,
// validation, failures before and after sending, budgets.
#include <doctest/doctest.h>

#include "transport_rig.h"

using namespace fmtest;
using forgemeter::AnswerClass;
using forgemeter::Api;
using forgemeter::kNoAnswer;
using forgemeter::Request;
using forgemeter::TransportErrc;

TEST_CASE("a GET is one request, one answer, charged to its host") {
  Rig rig;
  auto res = rig.get(rig.url("api.forge.test", "/repos/o/r/pulls/1"), 101);
  REQUIRE(res.ok());
  CHECK(res.status == 200);
  CHECK(res.body.find("/repos/o/r/pulls/1") != std::string::npos);
  CHECK(res.header("etag").has_value());
  REQUIRE(res.hops.size() == 1);
  CHECK(res.hops[0].host == rig.host("api.forge.test"));
  CHECK(res.hops[0].status == 200);

  const auto c = rig.counted();
  CHECK(c.malformed.empty());
  CHECK(c.total == 1);
  CHECK(c.by_key.at({rig.host("api.forge.test"), Api::rest, 101}) == 1);
  CHECK(c.answered(rig.host("api.forge.test"), AnswerClass::ok2xx) == 1);
  CHECK(forge_by_host(rig.forge()) == c.by_host);
  CHECK(c.lowest(101) == 4999);
}

TEST_CASE("GraphQL is charged as graphql; the body and method arrive") {
  Rig rig;
  Request r{.method = "POST", .url = rig.url("api.forge.test", "/graphql"), .body = R"({"query":"{viewer{login}}"})"};
  auto res = rig.transport().perform(r);
  REQUIRE(res.ok());
  CHECK(res.body == R"({"data":{}})");
  CHECK(res.hops.at(0).api == Api::graphql);
  const auto got = rig.forge().truth().requests();
  REQUIRE(got.size() == 1);
  CHECK(got[0].method == "POST");
  CHECK(rig.counted().by_key.at({rig.host("api.forge.test"), Api::graphql, 0}) == 1);
}

TEST_CASE("a matching If-None-Match is answered 304 and costs no budget") {
  Rig rig;
  auto first = rig.get(rig.url("api.forge.test", "/repos/o/r/pulls/2"), 7);
  REQUIRE(first.header("ETag"));
  Request again{.url = first.hops[0].url,
                .headers = {{"If-None-Match", std::string(*first.header("ETag"))}},
                .installation = 7,
                .bearer = "inst-7"};
  auto second = rig.transport().perform(again);
  REQUIRE(second.ok());
  CHECK(second.status == 304);
  CHECK(second.header("X-RateLimit-Remaining") == "4999");
  const auto c = rig.counted();
  CHECK(c.answered(rig.host("api.forge.test"), AnswerClass::not_modified) == 1);
  CHECK(c.total == 2);
}

TEST_CASE("connections are reused across requests") {
  Rig rig;
  for (int i = 0; i < 20; ++i)
    REQUIRE(rig.get(rig.url("api.forge.test", "/repos/o/r/pulls/" + std::to_string(i))).ok());
  CHECK(rig.forge().truth().total() == 20);
  CHECK(rig.forge().truth().connections() == 1);
}

TEST_CASE("requests that cannot be sent are refused before anything is counted") {
  Rig rig;
  const std::string ok_url = rig.url("api.forge.test", "/echo");
  const std::vector<Request> bad = {
      {.method = "GET X", .url = ok_url},
      {.method = "", .url = ok_url},
      {.url = "ftp://api.forge.test/x"},
      {.url = "file:///etc/passwd"},
      {.url = "not a url"},
      {.url = ok_url + "\r\nX: y"},
      {.url = ok_url, .headers = {{"X-Evil", "a\r\nAuthorization: Bearer stolen"}}},
      {.url = ok_url, .headers = {{"Bad Name", "v"}}},
      {.url = ok_url, .headers = {{"Host", "uploads.forge.test"}}},
      {.url = ok_url, .bearer = "inst-1\r\nX: y"},
      // a deadline past the steady clock's range would wrap: refused, not sent
      {.url = ok_url, .total_timeout = std::chrono::milliseconds::max()},
      {.url = ok_url, .timeout = std::chrono::milliseconds(-1)},
      {.url = ok_url, .connect_timeout = std::chrono::hours(100'001)},
  };
  for (const auto& r : bad) {
    auto res = rig.transport().perform(r);
    CHECK(res.error.code == TransportErrc::invalid_request);
    CHECK(res.hops.empty());
    CHECK(res.error.message.find('\n') == std::string::npos);
    CHECK(res.error.message.find('\r') == std::string::npos);
  }
  CHECK(rig.forge().truth().total() == 0);
  CHECK(rig.counted().total == 0);
}

TEST_CASE("a refused connection is one attempt with no answer, charged to the URL's host") {
  Rig rig;
  const int port = rig.forge().alt_port();
  // A port that was just listening and is closed now: a fresh forge stopped at once.
  tf::Forge gone;
  const int closed = gone.port();
  gone.stop();
  (void)port;
  Request r{.url = "http://127.0.0.1:" + std::to_string(closed) + "/repos/o/r"};
  auto res = rig.transport().perform(r);
  CHECK(res.error.code == TransportErrc::connect_failed);
  CHECK(res.error.message.find("libcurl error 7") != std::string::npos);
  const std::string said = "Couldn't connect to server";  // libcurl's description of 7: said once
  const auto first = res.error.message.find(said);
  CHECK(first != std::string::npos);
  CHECK(res.error.message.find(said, first + 1) == std::string::npos);
  REQUIRE(res.hops.size() == 1);
  CHECK(res.hops[0].status == kNoAnswer);
  const auto c = rig.counted();
  const std::string host = "127.0.0.1:" + std::to_string(closed);
  CHECK(c.by_host.at(host) == 1);
  CHECK(c.answered(host, AnswerClass::none) == 1);
}

TEST_CASE("a name that cannot be resolved is one attempt with no answer, charged to its host") {
  Rig rig;
  // A label of 64 octets is longer than DNS allows (RFC 1035 2.3.4): the
  // resolver fails without building a query, so nothing leaves the machine,
  // and /etc/hosts cannot name it either. A real resolver failure, no network.
  const std::string name = std::string(64, 'a') + ".forge.test";
  Request r{.url = "http://" + name + ":" + std::to_string(rig.forge().port()) + "/repos/o/r",
            .installation = 9,
            .bearer = "inst-9"};
  auto res = rig.transport().perform(r);
  CHECK(res.error.code == TransportErrc::resolve_failed);
  CHECK(res.error.message.find("libcurl error 6") != std::string::npos);
  REQUIRE(res.hops.size() == 1);
  CHECK(res.hops[0].status == kNoAnswer);
  const std::string host = name + ":" + std::to_string(rig.forge().port());
  CHECK(res.hops[0].host == host);
  CHECK(rig.forge().truth().total() == 0);
  const auto c = rig.counted();
  CHECK(c.by_host.at(host) == 1);
  CHECK(c.by_key.at({host, forgemeter::Api::rest, 9}) == 1);
  CHECK(c.answered(host, AnswerClass::none) == 1);
}

TEST_CASE("a slow answer past the timeout: sent, counted, no answer") {
  Rig rig;
  // The forge answers after 1 s; the client gives up after 250 ms (4x margin).
  Request r{.url = rig.url("api.forge.test", "/slow/1000"), .timeout = milliseconds(250)};
  auto res = rig.transport().perform(r);
  CHECK(res.error.code == TransportErrc::timeout);
  REQUIRE(res.hops.size() == 1);
  CHECK(res.hops[0].status == kNoAnswer);
  const auto c = rig.counted();
  CHECK(c.by_host.at(rig.host("api.forge.test")) == 1);
  CHECK(c.answered(rig.host("api.forge.test"), AnswerClass::none) == 1);
  CHECK(rig.forge().truth().await_total(1, seconds(10)));  // it was on the wire
}

TEST_CASE("a connection dropped mid-body: the answer's status was seen, the exchange failed") {
  Rig rig;
  auto res = rig.get(rig.url("api.forge.test", "/drop"), 3);
  CHECK(res.error.code == TransportErrc::connection_dropped);
  REQUIRE(res.hops.size() == 1);
  CHECK(res.hops[0].status == 200);
  // The next request goes out on a new connection and succeeds.
  CHECK(rig.get(rig.url("api.forge.test", "/echo"), 3).ok());
  const auto c = rig.counted();
  CHECK(c.total == 2);
  CHECK(forge_by_host(rig.forge()) == c.by_host);
  CHECK(c.lowest(3) == 4998);
}

TEST_CASE("a spent budget answers 403; the transport says so and the budget line shows 0") {
  Rig rig;
  rig.forge().budgets().set_limit(9, 3);
  for (int i = 0; i < 3; ++i) REQUIRE(rig.get(rig.url("api.forge.test", "/repos/o/r/issues"), 9).ok());
  auto res = rig.get(rig.url("api.forge.test", "/repos/o/r/issues"), 9);
  CHECK(res.status == 403);
  CHECK(res.error.code == TransportErrc::budget_exhausted);
  CHECK(res.error.message.find("spent (remaining 0)") != std::string::npos);
  CHECK(res.body.find("API rate limit exceeded") != std::string::npos);
  const auto c = rig.counted();
  CHECK(c.total == 4);
  CHECK(c.lowest(9) == 0);
  CHECK(c.answered(rig.host("api.forge.test"), AnswerClass::limited) == 1);
}

TEST_CASE("the lane is the request's, else the thread's scope; the lane header reaches the forge") {
  Rig rig({}, {.lane_header = std::string(tf::kLaneHeader)});
  const forgemeter::Lane sweeper{"merge-gate-sweeper"};
  rig.transport().perform({.url = rig.url("api.forge.test", "/echo"), .lane = sweeper});
  {
    forgemeter::LaneScope scope{forgemeter::Lane{"board-sync"}};
    rig.transport().perform({.url = rig.url("api.forge.test", "/echo")});
  }
  rig.transport().perform({.url = rig.url("api.forge.test", "/echo")});
  const auto c = rig.counted();
  const std::string h = rig.host("api.forge.test");
  CHECK(c.by_host_lane.at({h, "merge-gate-sweeper"}) == 1);
  CHECK(c.by_host_lane.at({h, "board-sync"}) == 1);
  CHECK(c.by_host_lane.at({h, "other"}) == 1);
  const auto lanes = rig.forge().truth().by_lane();
  CHECK(lanes.at("merge-gate-sweeper") == 1);
  CHECK(lanes.at("board-sync") == 1);
  CHECK(lanes.at("other") == 1);
}

TEST_CASE("unusable options are an error at construction") {
  forgemeter::Meter meter({.sink = [](std::string_view) {}});
  CHECK_THROWS_AS(forgemeter::Transport({}), std::invalid_argument);
  CHECK_THROWS_AS(forgemeter::Transport({.meter = &meter, .resolve = {"api.forge.test:80"}}), std::invalid_argument);
  CHECK_THROWS_AS(forgemeter::Transport({.meter = &meter, .resolve = {"api.forge.test:x:127.0.0.1"}}),
                  std::invalid_argument);
  CHECK_THROWS_AS(forgemeter::Transport({.meter = &meter, .max_redirects = -1}), std::invalid_argument);
  CHECK_THROWS_AS(forgemeter::Transport({.meter = &meter, .timeout = std::chrono::milliseconds(-1)}),
                  std::invalid_argument);
  CHECK_THROWS_AS(forgemeter::Transport({.meter = &meter, .connect_timeout = std::chrono::milliseconds::max()}),
                  std::invalid_argument);
  CHECK_THROWS_AS(forgemeter::Transport({.meter = &meter, .lane_header = "X Lane"}), std::invalid_argument);
  CHECK_NOTHROW(forgemeter::Transport({.meter = &meter, .resolve = {"api.forge.test:80:127.0.0.1"}}));
}

TEST_CASE("an unusable option's error names its field") {
  forgemeter::Meter meter({.sink = [](std::string_view) {}});
  using forgemeter::TransportOptions;
  const forgemeter::Lane sweeper{"sweeper"};
  auto why = [&](TransportOptions o) -> std::string {
    o.meter = o.meter ? o.meter : &meter;
    try {
      forgemeter::Transport t(std::move(o));
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(nothing thrown)";
  };
  const std::pair<TransportOptions, std::string> cases[] = {
      {{.resolve = {"ok:80:127.0.0.1", "api.forge.test:80"}}, "resolve[1]"},
      {{.max_redirects = -1}, "max_redirects"},
      {{.connect_timeout = std::chrono::milliseconds(-1)}, "connect_timeout"},
      {{.timeout = std::chrono::milliseconds(-1)}, "timeout"},
      {{.lane_header = "X Lane"}, "lane_header"},
      {{.rate_limits = {.retry = {.max_retries = -1}}}, "rate_limits.retry.max_retries"},
      {{.rate_limits = {.pause = {.wait = std::chrono::seconds(-1)}}}, "rate_limits.pause.wait"},
      {{.rate_limits = {.pause = {.max_wait = std::chrono::seconds(-1)}}}, "rate_limits.pause.max_wait"},
      {{.rate_limits = {.reserves = {{.lane = sweeper, .keep = 1}, {.lane = sweeper, .keep_fraction = 2}}}},
       "rate_limits.reserves[1].keep_fraction"},
      {{.rate_limits = {.pacing = {.lanes = {{.lane = sweeper, .resource = ""}}}}},
       "rate_limits.pacing.lanes[0].resource"},
      {{.rate_limits = {.pacing = {.tuning = {.burst = 0}}}}, "rate_limits.pacing.tuning.burst"},
      {{.rate_limits = {.secondary_limits = {.in_flight_recheck = {}}}},
       "rate_limits.secondary_limits.in_flight_recheck"},
      {{.cache = {.max_bytes = 1, .poll = {}}}, "cache.poll"},
      {{.max_installations = 0}, "max_installations"},
  };
  for (const auto& [options, field] : cases) {
    CAPTURE(field);
    CHECK(why(options).find(field) != std::string::npos);
  }
  CHECK_THROWS_WITH_AS(forgemeter::Transport({}), "Transport: meter is required", std::invalid_argument);
}

TEST_CASE("a reused handle sends each request as asked when the method changes") {
  // One thread, so every request goes out on the same pooled handle, which the
  // Transport reuses without curl_easy_reset while the hop's shape stays the
  // same: no method or body option of an earlier request may linger.
  Rig rig;
  const std::string url = rig.url("api.forge.test", "/repos/o/r/issues/1");
  struct Step {
    std::string method, body;
  };
  const std::vector<Step> steps{{"PUT", "abc"}, {"PUT", "abcd"}, {"DELETE", ""}, {"GET", ""},
                                {"PATCH", "x"}, {"GET", ""},     {"GET", ""},    {"PUT", ""}};
  for (const auto& s : steps) {
    auto res = rig.transport().perform(Request{.method = s.method, .url = url, .body = s.body});
    REQUIRE(res.ok());
    CHECK(res.status == 200);
    if (s.method != "GET")
      CHECK(res.body == R"({"method":")" + s.method + R"(","body_bytes":)" + std::to_string(s.body.size()) + "}");
  }
  const auto got = rig.forge().truth().requests();
  REQUIRE(got.size() == steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) CHECK(got[i].method == steps[i].method);
  CHECK(rig.counted().total == steps.size());
}

TEST_CASE("a reused handle sends each request's own headers, credential and lane") {
  // One thread, one pooled handle: the hop header list it keeps is rebuilt
  // whenever any of its inputs differ from the last request's.
  Rig rig({}, {.lane_header = std::string(tf::kLaneHeader)});
  const std::string url = rig.url("api.forge.test", "/repos/o/r/pulls/1");
  struct Step {
    std::string bearer;
    std::vector<forgemeter::Header> headers;
    std::uint64_t installation;
    std::string lane;  // "" = untagged (other)
  };
  const std::vector<Step> steps{{"inst-101", {}, 101, "sweeper"},
                                {"inst-102", {}, 102, "sweeper"},
                                {"inst-102", {{"X-Probe", "a"}}, 102, "sweeper"},
                                {"inst-102", {{"X-Probe", "a"}}, 102, "webhooks"},
                                {"inst-102", {{"X-Probe", "b"}}, 102, ""},
                                {"", {{"X-Probe", "b"}}, 0, ""},
                                {"inst-101", {}, 101, "webhooks"}};
  for (const auto& s : steps) {
    Request r{.url = url, .headers = s.headers, .bearer = s.bearer};
    if (!s.lane.empty()) r.lane = forgemeter::Lane(s.lane);
    REQUIRE(rig.transport().perform(r).ok());
  }
  const auto got = rig.forge().truth().requests();
  REQUIRE(got.size() == steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i].installation == steps[i].installation);
    CHECK(got[i].has_header("Authorization") == !steps[i].bearer.empty());
    const std::string probe = steps[i].headers.empty() ? "" : steps[i].headers[0].second;
    CHECK(got[i].has_header("X-Probe") == !probe.empty());
    if (!probe.empty()) CHECK(got[i].header("X-Probe") == probe);
    CHECK(got[i].lane == (steps[i].lane.empty() ? "other" : steps[i].lane));
  }
  // and the meter counted each request under the lane it went out with
  const auto c = rig.counted();
  const std::string host = rig.host("api.forge.test");
  CHECK(c.by_host_lane.at({host, "sweeper"}) == 3);
  CHECK(c.by_host_lane.at({host, "webhooks"}) == 2);
  CHECK(c.by_host_lane.at({host, "other"}) == 2);
}

namespace {

// The request-duration sample of `cls` in `m`, or nullptr.
const forgemeter::MetricSample* duration_sample(const forgemeter::MeterMetrics& m, std::string_view cls) {
  for (const auto& f : m.families) {
    if (f.name != "forgemeter_request_duration_seconds") continue;
    for (const auto& s : f.samples)
      for (const auto& [name, value] : s.labels)
        if (name == "class" && value == cls) return &s;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("each answered hop's time, sent to answered, lands in the meter's duration histogram") {
  Rig rig;
  forgemeter::Meter meter{forgemeter::MeterOptions{.sink = [](std::string_view) {}}};  // real time: real durations
  auto transport = rig.make_transport({.meter = &meter});
  // A 302 after 150 ms, then a 200 after 100 ms: the forge sleeps after the
  // request arrived, so each hop took at least that; both within the perform.
  const auto began = steady_clock::now();
  const auto res = transport->perform(Rig::get_request(rig.url("api.forge.test", "/slow/150?to=/slow/100")));
  const auto took = duration_cast<microseconds>(steady_clock::now() - began);
  REQUIRE(res.ok());
  REQUIRE(res.hops.size() == 2);
  const auto m = meter.metrics();
  const auto* redirect = duration_sample(m, "3xx");
  const auto* ok = duration_sample(m, "2xx");
  REQUIRE(redirect != nullptr);
  REQUIRE(ok != nullptr);
  CHECK(redirect->value == 1);
  CHECK(ok->value == 1);
  CHECK(redirect->buckets.at(1) == 0);  // le=0.1: not under 150 ms
  CHECK(ok->buckets.at(0) == 0);        // le=0.05: not under 100 ms
  CHECK(redirect->sum >= 150'000);      // microseconds
  CHECK(ok->sum >= 100'000);
  CHECK(redirect->sum + ok->sum <= static_cast<std::uint64_t>(took.count()));
}
