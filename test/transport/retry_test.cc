// The retry policy: off by default; idempotent retries of connection failures
// and 502/503/504 with jittered backoff; secondary rate limits honoured up to a
// maximum; a spent budget never retried. Waits go through the injected Clock.
// A stop request ends a wait, or a hop in flight.
#include <doctest/doctest.h>

#include <algorithm>
#include <mutex>
#include <thread>

#include "transport_rig.h"

using namespace fmtest;
using forgemeter::Request;
using forgemeter::TransportErrc;

namespace {

// A clock whose waits return at once and are remembered (the transport's
// only use of it here is waiting).
class RecordingClock final : public forgemeter::Clock {
 public:
  forgemeter::UtcMillis now() const override { return forgemeter::system_clock().now(); }
  forgemeter::SteadyTime steady_now() const override { return base_; }
  bool wait_until(forgemeter::SteadyTime deadline, std::stop_token) const override {
    std::lock_guard lock(mu_);
    waits_.push_back(duration_cast<milliseconds>(deadline - base_));
    return true;
  }
  std::vector<milliseconds> waits() const {
    std::lock_guard lock(mu_);
    return waits_;
  }

 private:
  forgemeter::SteadyTime base_{seconds(1000)};
  mutable std::mutex mu_;
  mutable std::vector<milliseconds> waits_;
};

// A clock whose waits return at once, having moved its steady face to their deadline.
class JumpingClock final : public forgemeter::Clock {
 public:
  forgemeter::UtcMillis now() const override { return forgemeter::system_clock().now(); }
  forgemeter::SteadyTime steady_now() const override {
    std::lock_guard lock(mu_);
    return at_;
  }
  bool wait_until(forgemeter::SteadyTime deadline, std::stop_token) const override {
    std::lock_guard lock(mu_);
    at_ = std::max(at_, deadline);
    return true;
  }

 private:
  mutable std::mutex mu_;
  mutable forgemeter::SteadyTime at_{seconds(1000)};
};

forgemeter::RetryOptions on() { return {.enabled = true, .max_retries = 3, .base_backoff = milliseconds(100)}; }

}  // namespace

TEST_CASE("retries are off by default") {
  Rig rig;
  auto res = rig.get(rig.url("api.forge.test", "/flaky/off?fail=1"));
  CHECK(res.ok());
  CHECK(res.status == 503);
  CHECK(res.hops.size() == 1);
}

TEST_CASE("502/503/504 are retried with jittered exponential backoff, each retry counted") {
  RecordingClock clock;
  Rig rig({}, {.clock = &clock, .rate_limits = {.retry = on()}});
  auto res = rig.get(rig.url("api.forge.test", "/flaky/k1?fail=3&status=503"), 11);
  REQUIRE(res.ok());
  CHECK(res.status == 200);
  REQUIRE(res.hops.size() == 4);
  for (int i = 0; i < 3; ++i) CHECK(res.hops[i].status == 503);
  const auto waits = clock.waits();
  REQUIRE(waits.size() == 3);
  // Retry k waits uniformly in [d/2, d], d = 100ms * 2^k.
  for (std::size_t k = 0; k < 3; ++k) {
    const auto d = milliseconds(100 << k);
    CHECK(waits[k] >= d / 2);
    CHECK(waits[k] <= d);
  }
  const auto c = rig.counted();
  CHECK(c.total == 4);
  CHECK(c.by_host == forge_by_host(rig.forge()));
  CHECK(c.answered(rig.host("api.forge.test"), forgemeter::AnswerClass::server5xx) == 3);

  // Retries run out: the last answer is returned as it is.
  auto gave_up = rig.get(rig.url("api.forge.test", "/flaky/k2?fail=10&status=502"));
  CHECK(gave_up.status == 502);
  CHECK(gave_up.hops.size() == 4);
}

TEST_CASE("non-idempotent methods are not retried on 5xx or a dropped connection") {
  RecordingClock clock;
  Rig rig({}, {.clock = &clock, .rate_limits = {.retry = on()}});
  auto res = rig.transport().perform({.method = "POST", .url = rig.url("api.forge.test", "/flaky/p?fail=1")});
  CHECK(res.status == 503);
  CHECK(res.hops.size() == 1);
  auto dropped = rig.transport().perform({.method = "POST", .url = rig.url("api.forge.test", "/drop")});
  CHECK(dropped.error.code == TransportErrc::connection_dropped);
  CHECK(dropped.hops.size() == 1);
  CHECK(clock.waits().empty());
}

TEST_CASE("a dropped connection and a refused connect are retried for GET") {
  RecordingClock clock;
  Rig rig({}, {.clock = &clock, .rate_limits = {.retry = on()}});
  auto res = rig.get(rig.url("api.forge.test", "/drop?key=d1&fail=2"));
  REQUIRE(res.ok());
  CHECK(res.hops.size() == 3);
  tf::Forge gone;
  const std::string url = "http://127.0.0.1:" + std::to_string(gone.port()) + "/x";
  gone.stop();
  auto refused = rig.get(url);
  CHECK(refused.error.code == TransportErrc::connect_failed);
  CHECK(refused.hops.size() == 4);
  const auto c = rig.counted();
  CHECK(c.by_host.at(rig.host("api.forge.test")) == 3);
  CHECK(c.by_host.at(forgemeter::host_of(url)) == 4);
  CHECK(c.answered(forgemeter::host_of(url), forgemeter::AnswerClass::none) == 4);
}

TEST_CASE("a secondary rate limit waits Retry-After when within the maximum") {
  RecordingClock clock;
  auto policy = on();
  policy.max_retry_after = seconds(60);
  Rig rig({}, {.clock = &clock, .rate_limits = {.retry = policy}});
  auto res = rig.transport().perform(
      {.method = "POST", .url = rig.url("api.forge.test", "/secondary/s1?fail=1&retry_after=7")});
  REQUIRE(res.ok());
  CHECK(res.status == 200);
  CHECK(res.hops.size() == 2);
  REQUIRE(clock.waits().size() == 1);
  CHECK(clock.waits()[0] == seconds(7));

  auto too_long = rig.get(rig.url("api.forge.test", "/secondary/s2?fail=1&retry_after=3600"));
  CHECK(too_long.status == 403);
  CHECK(too_long.error.code == TransportErrc::secondary_rate_limited);
  CHECK(too_long.error.message.find("over the maximum of 60s") != std::string::npos);
  CHECK(too_long.hops.size() == 1);
}

TEST_CASE("Response::waited: how long a request was held before its hops were sent") {
  JumpingClock clock;
  auto policy = on();
  policy.max_retry_after = seconds(60);
  Rig rig({}, {.clock = &clock, .rate_limits = {.retry = policy}});
  auto held = rig.transport().perform(
      {.method = "POST", .url = rig.url("api.forge.test", "/secondary/w1?fail=1&retry_after=7")});
  REQUIRE(held.ok());
  CHECK(held.waited == seconds(7));  // the secondary limit's Retry-After
  const auto straight = rig.get(rig.url("api.forge.test", "/repos/o/r"));
  CHECK(straight.waited == milliseconds(0));
}

TEST_CASE("total_timeout: a retry whose wait would pass it is not made; one that fits is") {
  RecordingClock clock;  // its steady time stands still: only the waits asked for count
  Rig rig({}, {.clock = &clock, .rate_limits = {.retry = on()}});
  Request r{.url = rig.url("api.forge.test", "/secondary/t1?fail=1&retry_after=7"), .total_timeout = seconds(5)};
  auto cut = rig.transport().perform(r);
  CHECK(cut.status == 403);
  CHECK(cut.error.code == TransportErrc::secondary_rate_limited);
  CHECK(cut.error.message.find("past the request's total_timeout") != std::string::npos);
  CHECK(cut.hops.size() == 1);
  CHECK(clock.waits().empty());

  r.url = rig.url("api.forge.test", "/secondary/t2?fail=1&retry_after=3");
  auto fits = rig.transport().perform(r);
  CHECK(fits.ok());
  CHECK(fits.status == 200);
  CHECK(fits.hops.size() == 2);
  REQUIRE(clock.waits().size() == 1);
  CHECK(clock.waits()[0] == seconds(3));

  // A 503's backoff (50-100 ms) past what is left: the 503 stands, not retried.
  r.url = rig.url("api.forge.test", "/flaky/t3?fail=1");
  r.total_timeout = milliseconds(40);
  auto gateway = rig.transport().perform(r);
  CHECK(gateway.status == 503);
  CHECK(gateway.hops.size() == 1);
  CHECK(clock.waits().size() == 1);
}

TEST_CASE("a spent primary budget is never retried, and the error says so") {
  RecordingClock clock;
  Rig rig({}, {.clock = &clock, .rate_limits = {.retry = on()}});
  rig.forge().budgets().set_limit(12, 1);
  REQUIRE(rig.get(rig.url("api.forge.test", "/repos/a/b"), 12).ok());
  auto res = rig.get(rig.url("api.forge.test", "/repos/a/b"), 12);
  CHECK(res.status == 403);
  CHECK(res.error.code == TransportErrc::budget_exhausted);
  CHECK(res.error.message.find("not retried") != std::string::npos);
  CHECK(res.hops.size() == 1);
  CHECK(clock.waits().empty());
}

TEST_CASE("a stop request ends a retry wait") {
  forgemeter::ManualClock clock(mid_hour());
  Rig rig({}, {.clock = &clock, .rate_limits = {.retry = on()}});
  std::stop_source stop;
  forgemeter::Response res;
  std::thread t([&] {
    res = rig.transport().perform({.url = rig.url("api.forge.test", "/flaky/c?fail=5"), .stop = stop.get_token()});
  });
  REQUIRE(clock.await_waiting(1, seconds(10)));
  stop.request_stop();
  t.join();
  CHECK(res.error.code == TransportErrc::cancelled);
  CHECK(res.hops.size() == 1);
}

TEST_CASE("a stop request ends a hop in flight: cancelled, its attempt counted with no answer") {
  Rig rig;
  std::stop_source stop;
  forgemeter::Response res;
  std::thread t([&] {
    res = rig.transport().perform({.url = rig.url("api.forge.test", "/hold/stop"), .stop = stop.get_token()});
  });
  REQUIRE(rig.forge().await_held("stop", 1, seconds(10)));
  const auto asked = std::chrono::steady_clock::now();
  stop.request_stop();
  t.join();
  // libcurl calls the progress callback at least once a second; the margin is for a loaded machine.
  CHECK(std::chrono::steady_clock::now() - asked < seconds(5));
  rig.forge().release("stop");
  CHECK(res.error.code == TransportErrc::cancelled);
  REQUIRE(res.hops.size() == 1);
  CHECK(res.hops[0].status == forgemeter::kNoAnswer);
  const auto c = rig.counted();
  const std::string host = rig.host("api.forge.test");
  CHECK(c.by_host.at(host) == 1);
  CHECK(c.answered(host, forgemeter::AnswerClass::none) == 1);
}
