// Acceptance: budgets as the forges keep them, through the loopback forge, from
// 4 threads. Search runs out (30 a minute) while core stays healthy; GraphQL
// spends points; the GitLab-style host's window runs out (429, one without any
// header); Gitea sends nothing; two installations meet secondary limits, with
// and without Retry-After. The meter's counts equal the forge's exactly, each
// resource's lowest reading is what the forge sent, secondary answers are
// classed `secondary`, a paused installation sends nothing until its wait
// ends, and other installations are not paused. The Transport waits on the
// rig's ManualClock (the forge's clock too), so a wait ends when the test
// moves it.
#include <doctest/doctest.h>

#include <functional>
#include <thread>

#include "transport_rig.h"

using namespace fmtest;
using forgemeter::AnswerClass;
using forgemeter::Lane;
using forgemeter::Request;
using forgemeter::Response;

namespace {

constexpr int kThreads = 4;
constexpr std::uint64_t kGithub = 101, kPosting = 202, kBystander = 203, kByHand = 204, kGitlab = 301;

Request as(std::uint64_t installation, Request r) {
  r.installation = installation;
  r.bearer = "inst-" + std::to_string(installation);
  return r;
}

// Every response the workload got, by thread, to count classes on the client side.
struct Seen {
  std::mutex mu;
  std::vector<Response> all;
  void add(Response r) {
    std::lock_guard lock(mu);
    all.push_back(std::move(r));
  }
  std::uint64_t count(const std::function<bool(const Response&)>& pred) {
    std::lock_guard lock(mu);
    return static_cast<std::uint64_t>(std::count_if(all.begin(), all.end(), pred));
  }
};

bool is_secondary(const Response& r) { return r.body == tf::kSecondaryBody; }

// Runs `work(thread)` on kThreads threads and joins them.
void on_threads(const std::function<void(int)>& work) {
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(work, t);
  for (auto& th : threads) th.join();
}

}  // namespace

TEST_CASE("resources, points, GitLab, secondary limits from 4 threads: meter == forge, pauses hold") {
  Rig rig({.gitlab_limit = 36, .secondary = {.max_posts_per_minute = 10, .retry_after_s = 30}});
  auto transport = rig.make_transport({.clock = &rig.clock(), .lane_header = std::string(tf::kLaneHeader)});
  auto& t = *transport;
  auto& forge = rig.forge();
  const Lane sweeper{"sweeper"}, board{"board"};
  Seen seen;
  auto send = [&](Request r) {
    Response res = t.perform(r);
    CHECK_MESSAGE(res.error.code != forgemeter::TransportErrc::installation_paused, res.error.message);
    seen.add(std::move(res));
  };

  // Phase 1: core, search past its 30 a minute, GraphQL points, GitLab past its window, Gitea.
  on_threads([&](int th) {
    const Lane lane = th % 2 ? board : sweeper;
    for (int i = 0; i < 10; ++i) {
      send(as(kGithub, {.url = rig.url("api.forge.test", "/repos/o/r/pulls/" + std::to_string(i)), .lane = lane}));
      send(as(kGithub, {.url = rig.url("api.forge.test", "/search/issues?q=" + std::to_string(i)), .lane = lane}));
      if (i % 5 == 0)  // 8 POSTs in all: the forge's secondary rule allows 10 a minute
        send(as(kGithub, {.method = "POST",
                          .url = rig.url("api.forge.test", "/graphql"),
                          .headers = {{std::string(tf::kCostHeader), "7"}},
                          .body = "{}",
                          .lane = lane}));
      send(as(kGitlab, {.url = rig.url(tf::kGitlabHost, "/api/v4/projects/1"), .lane = lane}));
      send({.url = rig.url(tf::kGiteaHost, "/api/v1/repos/o/r"), .lane = lane, .installation = 401});
    }
  });
  send(as(kGitlab, {.url = rig.url(tf::kGitlabHost, "/api/v4/projects/1?no_headers=1")}));  // a bare 429: secondary

  // Phase 2: POSTs of one installation trip the forge's rule (10 a minute) with Retry-After 30.
  for (int i = 0; i < 11; ++i)
    send(as(kPosting, {.method = "POST", .url = rig.url("api.forge.test", "/echo"), .body = std::to_string(i)}));
  REQUIRE(forge.secondary_limited_until(kPosting));
  const auto t0 = rig.clock().now();
  CHECK(forge.truth().received(kPosting, t0 - hours(1), t0 + hours(1)) == 11);

  // Phase 3: every thread sends to another installation (not paused), then twice to the paused one.
  std::vector<std::thread> waiting;
  for (int th = 0; th < kThreads; ++th)
    waiting.emplace_back([&] {
      send(as(kBystander, {.url = rig.url("api.forge.test", "/repos/o/r")}));
      for (int i = 0; i < 2; ++i) send(as(kPosting, {.url = rig.url("api.forge.test", "/repos/o/r")}));
    });
  REQUIRE(rig.clock().await_waiting(kThreads, seconds(10)));
  CHECK(forge.truth().received(kBystander, t0 - hours(1), t0 + hours(1)) == kThreads);
  rig.clock().advance(seconds(29));
  CHECK(forge.truth().received(kPosting, t0 - hours(1), t0 + hours(1)) == 11);  // nothing inside the wait
  rig.clock().advance(seconds(1));
  for (auto& th : waiting) th.join();
  CHECK(forge.truth().received(kPosting, t0 + seconds(30), t0 + seconds(31)) == 2 * kThreads);

  // Phase 4: a secondary limit without Retry-After pauses its installation 60 s.
  forge.limit_secondary(kByHand, seconds(60), false);
  const auto t1 = rig.clock().now();
  send(as(kByHand, {.url = rig.url("api.forge.test", "/repos/o/r")}));
  waiting.clear();
  for (int th = 0; th < kThreads; ++th)
    waiting.emplace_back([&] { send(as(kByHand, {.url = rig.url("api.forge.test", "/repos/o/r")})); });
  REQUIRE(rig.clock().await_waiting(kThreads, seconds(10)));
  rig.clock().advance(seconds(59));
  CHECK(forge.truth().received(kByHand, t1, t1 + seconds(60)) == 1);
  rig.clock().advance(seconds(1));
  for (auto& th : waiting) th.join();
  CHECK(forge.truth().received(kByHand, t1 + seconds(60), t1 + seconds(61)) == kThreads);

  // The meter beside the forge: counts exact, host by host and lane by lane.
  const auto c = rig.counted();
  CHECK(c.malformed.empty());
  CHECK(c.total == forge.truth().total());
  CHECK(c.by_host == forge_by_host(forge));
  for (const auto& [key, n] : forge.truth().by_host_and_lane())
    CHECK(c.by_host_lane.at({key.first, key.second.empty() ? "other" : key.second}) == n);

  // Classes: secondary as the client saw the forge's secondary answers; limited the spent windows.
  std::uint64_t secondary = 0, limited = 0;
  for (const auto& [host, classes] : c.answers) {
    secondary += classes[static_cast<std::size_t>(AnswerClass::secondary)];
    limited += classes[static_cast<std::size_t>(AnswerClass::limited)];
  }
  const auto bare_429 = seen.count([](const Response& r) { return r.status == 429 && !r.header("Retry-After"); });
  CHECK(bare_429 == 1);
  CHECK(secondary == seen.count(is_secondary) + bare_429);
  CHECK(secondary >= 3);  // the POST that tripped the rule and any in flight with it, the by-hand one, the bare 429
  CHECK(limited == seen.count([](const Response& r) {
    return (r.status == 403 || r.status == 429) &&
           (r.header("X-RateLimit-Remaining") == "0" || r.header("RateLimit-Remaining") == "0");
  }));
  CHECK(limited == 10 + 4);  // the searches past 30 in the minute; GitLab's past its 36

  // Each resource's lowest reading is the lowest the forge sent.
  auto lowest = [&](const std::string& host, std::uint64_t installation, const std::string& resource,
                    forgemeter::Api api = forgemeter::Api::rest) {
    std::optional<std::uint64_t> low;
    for (const auto& b : c.budgets)
      if (b.host == host && b.api == api && b.installation == installation && b.resource == resource &&
          (!low || b.remaining < *low))
        low = b.remaining;
    return low;
  };
  const std::string github = rig.host("api.forge.test"), gitlab = rig.host(tf::kGitlabHost);
  CHECK(lowest(github, kGithub, "") == forge.budgets().lowest_remaining(kGithub, "core"));
  CHECK(lowest(github, kGithub, "search") == 0u);
  CHECK(forge.budgets().lowest_remaining(kGithub, "search") == 0u);
  CHECK(lowest(github, kGithub, "") > 4900u);                 // the search running out left core healthy
  CHECK(lowest(github, kGithub, "graphql") == std::nullopt);  // graphql is GraphQL's own default, on its line
  const auto points = lowest(github, kGithub, "", forgemeter::Api::graphql);
  CHECK(points == 5000u - 8u * 7u);
  CHECK(points == forge.budgets().lowest_remaining(kGithub, "graphql"));
  CHECK(lowest(gitlab, kGitlab, "") == 0u);
  CHECK(forge.budgets().lowest_remaining(kGitlab, "gitlab") == 0u);
  CHECK(lowest(rig.host(tf::kGiteaHost), 401, "") == std::nullopt);  // Gitea: no budget, nothing invented
  CHECK(lowest(github, kPosting, "") == forge.budgets().lowest_remaining(kPosting, "core"));
}
