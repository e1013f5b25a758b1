// Coalescing and the cache's books, against a loopback HTTP
// server, with several threads. Waits are on conditions (eventually());
// timing checks state their margins.
#include <doctest/doctest.h>

#include <atomic>
#include <latch>
#include <stop_token>
#include <thread>

#include "cache_rig.h"
#include "support/eventually.h"

using namespace fmtest;
using forgemeter::AnswerClass;
using forgemeter::Request;
using forgemeter::Response;
using forgemeter::TransportErrc;

TEST_CASE("8 threads reading one URL at once put 1 request on the wire; all 8 get the body") {
  CacheRig rig;
  rig.server().set("/hot", {.body = "hot body", .etag = "\"h\""});
  rig.server().hold();
  std::vector<Response> got(8);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) threads.emplace_back([&, i] { got[i] = rig.get("/hot"); });
  REQUIRE(eventually([&] { return rig.server().requests() == 1 && rig.transport().cache_figures().following == 7; }));
  rig.server().release();
  for (auto& t : threads) t.join();
  int coalesced = 0;
  for (const auto& r : got) {
    CHECK(r.ok());
    CHECK(r.status == 200);
    CHECK(r.body == "hot body");
    coalesced += r.coalesced;
    CHECK(r.hops.size() == (r.coalesced ? 0u : 1u));  // a follower sent nothing
  }
  CHECK(coalesced == 7);
  CHECK(rig.server().requests() == 1);
  const auto c = rig.counted();
  CHECK(c.total == 1);
  CHECK(c.answered(rig.host(), AnswerClass::ok2xx) == 1);
  CHECK(c.answered(rig.host(), AnswerClass::coalesced) == 7);
  CHECK(rig.transport().cache_figures().following == 0);
}

TEST_CASE("different credentials are not coalesced") {
  CacheRig rig;
  rig.server().set("/r", {.body = "b", .etag = "auto", .per_credential = true});
  rig.server().hold();
  Response a, b;
  std::thread ta([&] { a = rig.get("/r", "tok-a"); });
  std::thread tb([&] { b = rig.get("/r", "tok-b"); });
  const bool both_sent = eventually([&] { return rig.server().requests() == 2; }, std::chrono::seconds(5));
  rig.server().release();
  ta.join();
  tb.join();
  CHECK(both_sent);
  CHECK(a.body == "b for Bearer tok-a");
  CHECK(b.body == "b for Bearer tok-b");
  CHECK_FALSE(a.coalesced);
  CHECK_FALSE(b.coalesced);
}

TEST_CASE("a stopped leader releases its followers at once; each sends its own") {
  forgemeter::TransportOptions t;
  t.rate_limits.retry = {.enabled = true,
                         .max_retries = 3,
                         .base_backoff = std::chrono::minutes(1),
                         .max_backoff = std::chrono::minutes(1)};
  CacheRig rig(small_cache(), t);
  rig.server().set("/r", {.body = "ok", .etag = "\"1\"", .status = 503});
  std::stop_source leader_stop;
  Response leader;
  std::thread lt([&] {
    Request r = rig.get_request("/r");
    r.stop = leader_stop.get_token();
    leader = rig.transport().perform(r);  // 503, then waits a minute to retry
  });
  REQUIRE(eventually([&] { return rig.server().requests() == 1; }));
  std::vector<Response> got(3);
  std::vector<std::thread> followers;
  for (int i = 0; i < 3; ++i) followers.emplace_back([&, i] { got[i] = rig.get("/r"); });
  REQUIRE(eventually([&] { return rig.transport().cache_figures().following == 3; }));
  rig.server().set("/r", {.body = "ok", .etag = "\"1\""});
  const auto stopped = std::chrono::steady_clock::now();
  leader_stop.request_stop();
  lt.join();
  for (auto& f : followers) f.join();
  // Margin: one poll (10 ms) and three loopback requests; 2 s on a loaded machine.
  CHECK(std::chrono::steady_clock::now() - stopped < std::chrono::seconds(2));
  CHECK(leader.error.code == TransportErrc::cancelled);
  for (const auto& r : got) {
    CHECK(r.ok());
    CHECK(r.body == "ok");
    CHECK_FALSE(r.coalesced);
  }
  CHECK(rig.server().requests() == 4);
}

TEST_CASE("a follower's own stop and total_timeout end its wait") {
  CacheRig rig;
  rig.server().set("/r", {.body = "b", .etag = "\"1\""});
  rig.server().hold();
  Response leader, stopped, late;
  std::thread lt([&] { leader = rig.get("/r"); });
  REQUIRE(eventually([&] { return rig.server().requests() == 1; }));
  std::stop_source stop;
  std::thread st([&] {
    Request r = rig.get_request("/r");
    r.stop = stop.get_token();
    stopped = rig.transport().perform(r);
  });
  std::thread tt([&] {
    Request r = rig.get_request("/r");
    r.total_timeout = std::chrono::milliseconds(50);
    late = rig.transport().perform(r);
  });
  tt.join();  // its own total time ends its wait, the leader still held
  CHECK(late.error.code == TransportErrc::timeout);
  REQUIRE(eventually([&] { return rig.transport().cache_figures().following == 1; }));
  const auto at = std::chrono::steady_clock::now();
  stop.request_stop();
  st.join();
  CHECK(std::chrono::steady_clock::now() - at <
        std::chrono::milliseconds(500));  // a stop wakes the wait: < 1 poll + scheduling
  CHECK(stopped.error.code == TransportErrc::cancelled);
  rig.server().release();
  lt.join();
  CHECK(leader.body == "b");
  CHECK(rig.server().requests() == 1);
}

TEST_CASE("counts equal the server's under 4 threads with the cache on") {
  CacheRig rig;
  for (int i = 0; i < 50; ++i) rig.server().set("/p/" + std::to_string(i), {.body = "p", .etag = "auto"});
  std::atomic<int> coalesced{0}, revalidated{0}, bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int round = 0; round < 10; ++round)
        for (int i = 0; i < 50; ++i) {
          auto r = rig.get("/p/" + std::to_string(i));
          bad += !r.ok() || r.body != "p";
          coalesced += r.coalesced;
          revalidated += r.revalidated;
        }
    });
  for (auto& t : threads) t.join();
  CHECK(bad == 0);
  const auto c = rig.counted();
  CHECK(c.total == rig.server().requests());
  CHECK(c.total + coalesced == 2000);
  CHECK(c.answered(rig.host(), AnswerClass::not_modified) == rig.server().not_modified());
  CHECK(c.answered(rig.host(), AnswerClass::revalidated) == static_cast<std::uint64_t>(revalidated));
  CHECK(c.answered(rig.host(), AnswerClass::coalesced) == static_cast<std::uint64_t>(coalesced));
  CHECK(c.answered(rig.host(), AnswerClass::ok2xx) + c.answered(rig.host(), AnswerClass::not_modified) == c.total);
}
