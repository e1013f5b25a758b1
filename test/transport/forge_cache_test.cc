// The Transport's cache (TransportOptions::cache) against the loopback forge,
// whose ETags are per credential and representation and whose 304s are free
// on GitHub-style hosts: what a sweep is charged, what its callers get, and
// the meter's counts beside the forge's ground truth, under 4 threads.
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "forge_calls.h"
#include "support/eventually.h"
#include "transport_rig.h"

using namespace fmtest;
using forgemeter::AnswerClass;
using forgemeter::Lane;
using forgemeter::Request;

namespace {

forgemeter::TransportOptions cached() {
  forgemeter::TransportOptions t;
  t.cache.max_bytes = 16u << 20;
  t.lane_header = std::string(tf::kLaneHeader);
  // 6,000 reads of one installation in seconds: GitHub's 900 points a minute
  // would hold them for minutes (the secondary limits are tested apart)
  t.rate_limits.secondary_limits = forgemeter::SecondaryLimitOptions::off();
  return t;
}

std::string pull(int i) { return "/repos/o/r/pulls/" + std::to_string(i); }

}  // namespace

TEST_CASE("cache on the forge: 200 resources read 30 times from 4 threads are charged 200; counts == ground truth") {
  Rig rig({}, cached());
  constexpr int kResources = 200, kRounds = 30, kThreads = 4;
  const Lane sweep{"sweep"};
  std::vector<int> wrong(kThreads, 0);
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        for (int round = 0; round < kRounds; ++round)
          for (int i = t; i < kResources; i += kThreads) {
            Request r = as(41, {.url = rig.url("api.forge.test", pull(i))});
            r.lane = sweep;
            const auto res = rig.transport().perform(r);
            if (res.status != 200 || res.body.find(pull(i)) == std::string::npos) ++wrong[t];
          }
      });
  }
  for (int t = 0; t < kThreads; ++t) CHECK(wrong[t] == 0);  // every caller got the body
  CHECK(rig.forge().budgets().lowest_remaining(41, "core") == 5000u - kResources);
  auto& truth = rig.forge().truth();
  const std::string api = rig.host("api.forge.test");
  CHECK(truth.total() == kResources * kRounds);  // a revalidation is a request on the wire
  const auto conditionals = truth.conditionals_by_host_and_lane().at({api, "sweep"});
  CHECK(conditionals ==
        tf::Conditionals{.sent = kResources * (kRounds - 1), .not_modified = kResources * (kRounds - 1)});
  const auto c = rig.counted();
  REQUIRE(c.malformed.empty());
  CHECK(c.by_host_lane == truth.by_host_and_lane());
  CHECK(c.answered(api, AnswerClass::ok2xx) == kResources);
  CHECK(c.answered(api, AnswerClass::not_modified) == conditionals.not_modified);
  CHECK(c.answered(api, AnswerClass::revalidated) == conditionals.not_modified);
}

TEST_CASE("cache on the forge: after a change the next read has the new body; credentials never share one") {
  Rig rig({}, cached());
  const std::string url = rig.url("api.forge.test", pull(1));
  const auto a = rig.transport().perform(as(42, {.url = url}));
  const auto b = rig.transport().perform(as(43, {.url = url}));
  REQUIRE(a.status == 200);
  CHECK(a.body != b.body);  // the forge answers each credential its own
  const auto a_again = rig.transport().perform(as(42, {.url = url}));
  const auto b_again = rig.transport().perform(as(43, {.url = url}));
  CHECK(a_again.revalidated);
  CHECK(a_again.body == a.body);
  CHECK(b_again.revalidated);
  CHECK(b_again.body == b.body);

  rig.forge().bump(pull(1));
  const auto changed = rig.transport().perform(as(42, {.url = url}));
  CHECK(changed.status == 200);
  CHECK_FALSE(changed.revalidated);
  CHECK(changed.body.find(R"("version":1)") != std::string::npos);
  CHECK(rig.transport().perform(as(42, {.url = url})).body == changed.body);  // and it is kept
  // Charged: two first reads, the change; the revalidations were free.
  CHECK(rig.forge().budgets().lowest_remaining(42, "core") == 4998u);
  CHECK(rig.forge().budgets().lowest_remaining(43, "core") == 4999u);
}

TEST_CASE("cache on the forge: Accept is a representation: one kept answer never stands for another") {
  Rig rig({}, cached());
  const std::string url = rig.url("api.forge.test", pull(2));
  auto with_accept = [&](const char* accept) {
    return rig.transport().perform(as(44, {.url = url, .headers = {{"Accept", accept}}}));
  };
  const auto json = with_accept("application/vnd.github+json");
  const auto raw = with_accept("application/vnd.github.raw+json");
  CHECK_FALSE(raw.revalidated);
  CHECK(raw.body != json.body);
  CHECK(with_accept("application/vnd.github+json").body == json.body);
  CHECK(with_accept("application/vnd.github.raw+json").body == raw.body);
}

TEST_CASE("cache on the forge: a sweep in two lanes shows each lane's revalidated and coalesced on the lanes line") {
  Rig rig({}, cached());
  const Lane sweep{"sweep"}, board{"board"};
  std::mutex mu;                                                // the readers' threads add to the maps
  std::map<std::string, std::uint64_t> revalidated, coalesced;  // by lane, from the Responses
  auto read = [&](Lane lane, const std::string& path) {
    Request r = as(41, {.url = rig.url("api.forge.test", path)});
    r.lane = lane;
    const auto res = rig.transport().perform(r);
    CHECK(res.status == 200);
    std::lock_guard lock(mu);
    revalidated[std::string(lane.name())] += res.revalidated;
    coalesced[std::string(lane.name())] += res.coalesced;
    return res;
  };
  for (int round = 0; round < 5; ++round)
    for (int i = 0; i < 20; ++i) read(sweep, pull(i));
  // Three readers of one held resource in the board lane: one on the wire, two following it.
  const std::string held = pull(500) + "?hold=lanes";
  std::vector<std::jthread> readers;
  for (int i = 0; i < 3; ++i) readers.emplace_back([&] { read(board, held); });
  REQUIRE(eventually([&] { return rig.transport().cache_figures().following == 2; }));
  const std::size_t following = rig.transport().cache_figures().following;
  rig.forge().release("lanes");
  readers.clear();
  read(board, held);  // kept: a 304, not held

  CHECK(revalidated["sweep"] == 20u * 4);
  CHECK(coalesced["sweep"] == 0u);
  CHECK(revalidated["board"] == 1u);
  CHECK(coalesced["board"] == following);
  const auto c = rig.counted();
  REQUIRE(c.malformed.empty());
  const std::string api = rig.host("api.forge.test");
  const auto& s = c.lanes.at({api, "sweep"});
  const auto& b = c.lanes.at({api, "board"});
  CHECK(s.installation == 41u);
  CHECK(s.revalidated == revalidated["sweep"]);
  CHECK(s.coalesced == 0u);
  CHECK(b.revalidated == revalidated["board"]);
  CHECK(b.coalesced == coalesced["board"]);
  CHECK(s.waited_ms == decltype(s.waited_ms){});  // nothing waited
  CHECK(c.lanes.size() == 2);
  // The answers line's classes are the lanes' sums.
  CHECK(c.answered(api, AnswerClass::revalidated) == s.revalidated + b.revalidated);
  CHECK(c.answered(api, AnswerClass::coalesced) == s.coalesced + b.coalesced);
}
