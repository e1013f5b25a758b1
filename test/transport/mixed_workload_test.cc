// Acceptance: a mixed workload from 4 threads — redirect chains across three
// hosts, 304s, 5xx with retries, rate-limited 403s, dropped connections,
// GraphQL and REST, several lanes and installations. The meter's counts per
// host (and per host and lane) equal the forge's own received counts exactly,
// every hop is in its host's entry, and the budget line shows each
// installation's true lowest remaining.
//
// 10,000 performs (about 17,000 requests on the wire). FORGEMETER_MIXED_REQUESTS
// overrides the number of performs (e.g. smaller on a very slow machine); the
// default is what CI runs, also under ASan and TSan.
#include <doctest/doctest.h>

#include <cstdlib>
#include <thread>

#include "support/skips.h"
#include "testforge/routes.h"
#include "transport_rig.h"

using namespace fmtest;
using forgemeter::Api;
using forgemeter::Lane;
using forgemeter::Request;

namespace {

int performs() {
  if (const char* v = std::getenv("FORGEMETER_MIXED_REQUESTS")) {
    fmtest::skipped("FORGEMETER_MIXED_REQUESTS: the 10,000-request workload was shrunk");
    return std::max(100, std::atoi(v));
  }
  return 10'000;
}

Request make(Rig& rig, int thread, int j, Lane sweeper, Lane board) {
  const std::string api = "api.forge.test";
  const std::string unique = std::to_string(thread) + "-" + std::to_string(j);
  auto with = [](Request r, std::uint64_t inst, std::optional<Lane> lane) {
    if (inst) {
      r.installation = inst;
      r.bearer = "inst-" + std::to_string(inst);
    }
    r.lane = lane;
    return r;
  };
  switch (j % 12) {
    case 0: return with({.url = rig.url(api, "/repos/o/r/pulls/" + std::to_string(j % 50))}, 101, sweeper);
    case 1: return with({.url = rig.url(api, "/chain/2")}, 101, sweeper);
    case 2: {
      const std::string path = "/repos/o/r/pulls/" + std::to_string(j % 7);
      return with(
          {.url = rig.url(api, path), .headers = {{"If-None-Match", rig.forge().etag(path, "Bearer inst-202")}}}, 202,
          board);
    }
    case 3: return with({.method = "POST", .url = rig.url(api, "/graphql"), .body = R"({"query":"{x}"})"}, 101, board);
    case 4: return with({.url = rig.url(api, "/flaky/" + unique + "?fail=1")}, 202, std::nullopt);
    case 5: return with({.url = rig.url(api, "/repos/o/r/issues/" + std::to_string(j))}, 303, std::nullopt);
    case 6: return with({.url = rig.url(api, "/drop?key=" + unique + "&fail=1")}, 101, sweeper);
    case 7: return with({.url = rig.url(api, "/chain/4?status=307")}, 0, sweeper);
    case 8:
      return with({.method = "POST", .url = rig.url(api, tf::redirect_path("/echo", 303)), .body = "x"}, 202, board);
    case 9: return with({.url = rig.url("uploads.forge.test", "/status/502")}, 0, std::nullopt);
    case 10: return with({.url = rig.url(api, "/repos/o/r/commits/abc/status")}, 202, board);
    default: return with({.method = "HEAD", .url = rig.url("codeload.forge.test", "/repos/o/r/tarball")}, 0, sweeper);
  }
}

// The workload from 4 threads through a Transport with `cache`, and its
// counts checked against the forge's.
void mixed_workload(forgemeter::CacheOptions cache) {
  Rig rig({}, {.lane_header = std::string(tf::kLaneHeader),
               .rate_limits = {.retry = {.enabled = true,
                                         .max_retries = 2,
                                         .base_backoff = milliseconds(1),
                                         .max_backoff = milliseconds(2)},
                               // thousands of requests a second of one installation: GitHub's
                               // secondary limits would hold them for minutes (they are tested apart)
                               .secondary_limits = forgemeter::SecondaryLimitOptions::off()},
               .cache = cache});
  rig.forge().budgets().set_limit(303, 150);  // runs out early: the rest are 403s, never retried
  const Lane sweeper{"merge-gate-sweeper"};
  const Lane board{"board-sync"};
  const int total = performs();
  constexpr int kThreads = 4;

  std::vector<std::map<std::string, std::uint64_t>> hops_by_host(kThreads), hops_by_lane(kThreads);
  std::vector<int> failures(kThreads, 0), limited(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      const Lane scoped = t % 2 ? board : sweeper;
      forgemeter::LaneScope scope{scoped};  // untagged requests take the thread's lane
      for (int j = t; j < total; j += kThreads) {
        const Request req = make(rig, t, j, sweeper, board);
        const auto res = rig.transport().perform(req);
        for (const auto& hop : res.hops) ++hops_by_host[t][hop.host];
        hops_by_lane[t][std::string(req.lane.value_or(scoped).name())] += res.hops.size();
        if (res.error.code == forgemeter::TransportErrc::budget_exhausted)
          ++limited[t];
        else if (!res.ok())
          ++failures[t];
      }
    });
  for (auto& th : threads) th.join();

  int all_failures = 0, all_limited = 0;
  for (int t = 0; t < kThreads; ++t) {
    all_failures += failures[t];
    all_limited += limited[t];
  }
  CHECK(all_failures == 0);  // drops and 5xx were retried into answers
  CHECK(all_limited > 0);
  const auto c = rig.counted();
  REQUIRE(c.malformed.empty());
  auto& truth = rig.forge().truth();
  MESSAGE("performs: " << total << ", requests on the wire: " << truth.total());
  CHECK(truth.total() > static_cast<std::uint64_t>(total) * 3 / 2);

  // Counts per host: meter == forge, exactly.
  CHECK(c.by_host == truth.by_host());
  CHECK(c.by_host.size() == 3);
  CHECK(c.total == truth.total());
  // Per host and lane too. The forge counts lanes from the lane header, which
  // the transport writes from the same lane it counts under: this equality
  // shows the header and the count agree, not that the lane is right...
  CHECK(c.by_host_lane == truth.by_host_and_lane());
  // ... which the workload's own plan does: each request's lane as this test
  // chose it (its own, or its thread's scope), times the hops it took.
  std::map<std::string, std::uint64_t> planned, metered;
  for (const auto& m : hops_by_lane)
    for (const auto& [lane, n] : m) planned[lane] += n;
  for (const auto& [host_lane, n] : c.by_host_lane) metered[host_lane.second] += n;
  CHECK(metered == planned);
  CHECK(planned.size() == 2);  // every request tagged, by itself or by its thread
  // Every hop the transport reported is in its host's entry.
  std::map<std::string, std::uint64_t> hops;
  for (const auto& m : hops_by_host)
    for (const auto& [h, n] : m) hops[h] += n;
  CHECK(hops == c.by_host);

  // The budget line: each installation's true lowest remaining, per API.
  const std::string api_host = rig.host("api.forge.test");
  auto entry = [&](Api api, std::uint64_t inst) -> std::optional<std::uint64_t> {
    for (const auto& b : c.budgets)
      if (b.host == api_host && b.api == api && b.installation == inst) return b.remaining;
    return std::nullopt;
  };
  for (std::uint64_t inst : {101u, 202u, 303u}) {
    CAPTURE(inst);
    CHECK(entry(Api::rest, inst) == rig.forge().budgets().lowest_remaining(inst, "core"));
  }
  CHECK(entry(Api::graphql, 101) == rig.forge().budgets().lowest_remaining(101, "graphql"));
  CHECK(entry(Api::rest, 303) == 0u);

  // The 304s: the requests' own If-None-Match, and the cache's revalidations.
  std::map<std::string, std::uint64_t> forge_304;
  for (const auto& [host_lane, n] : truth.conditionals_by_host_and_lane()) forge_304[host_lane.first] += n.not_modified;
  for (const auto& [host, n] : forge_304) {
    CAPTURE(host);
    CHECK(c.answered(host, forgemeter::AnswerClass::not_modified) == n);
  }
  const std::uint64_t revalidated = c.answered(api_host, forgemeter::AnswerClass::revalidated);
  MESSAGE("304s at the forge: " << forge_304[api_host] << ", of them revalidated by the cache: " << revalidated);
  CHECK((cache.max_bytes == 0) == (revalidated == 0));
}

}  // namespace

TEST_CASE("mixed workload from 4 threads: meter == forge, host by host and lane by lane") { mixed_workload({}); }

TEST_CASE("mixed workload from 4 threads with the cache on: meter == forge, 304s and revalidations too") {
  mixed_workload({.max_bytes = 16u << 20});
}
