// PostgresStore latency: acquire, renew, release (and inspect) against a local
// server, beside bare prepared statements over the same kind of connection
// (the store's own async libpq connection): `SELECT 1` (the baseline), a
// one-row UPDATE of a logged table (the least a durable write costs: it waits
// for a WAL flush when the server has fsync and synchronous_commit on) and
// the same UPDATE of an UNLOGGED table (the least any committed write costs).
//
// The calls are INTERLEAVED in blocks: each iteration is one round of
// kBlock calls of every kind in turn, so a burst of load on this shared
// machine hits all kinds alike and the ratios compare like with like (blocks,
// not single calls, because the bare connection and the store's are two
// server processes, and waking the other one on every call would be measured
// too). Counters per kind: <kind>_med and <kind>_p99 in
// microseconds, and <kind>_x = its median / SELECT 1's median (the target for
// the lease calls is <= 1.5). The same figures are printed as a table on
// stderr at the end.
//
// The lease calls, as a campaign makes them: acquire_refused (a candidate
// polling a lease it saw held), acquire_refused_first (its first poll of a
// held lease), acquire_taken (a change of hands: the previous holder released,
// untimed), acquire_granted (the holder's re-acquire), renew, release (the
// holder's, after an untimed change of hands and renewal), inspect; and
// acquire_statement_refused: the store's full acquire statement alone on the
// bare connection, refused (what a candidate that lost a race sends).
//
// Then the clean-handover latency between two stores (bench/handovers.h).
//
// Server: FORGEMETER_TEST_PG when set, else a private throwaway instance
// (initdb in /tmp, as test/support/pg_instance.h does).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "forgemeter/postgres_store.h"
#include "handovers.h"
#include "lease/postgres/connection.h"
#include "lease/postgres/listener.h"
#include "lease/postgres/statements.h"
#include "support/pg_instance.h"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using forgemeter::LeaseState;
using forgemeter::LeaseStatus;

const forgemeter::WallTime t0{std::chrono::milliseconds(1'790'000'000'000)};

const std::string& conninfo() {
  static std::unique_ptr<fmtest::PrivatePg> own;
  static const std::string c = [] {
    if (const char* env = std::getenv("FORGEMETER_TEST_PG"); env && *env) return std::string(env);
    own = std::make_unique<fmtest::PrivatePg>();
    return own->conninfo();
  }();
  return c;
}

forgemeter::Deadline bound() { return forgemeter::Deadline::after(forgemeter::system_clock(), 5s); }

constexpr int kBlock = 20;

struct Kind {
  const char* name;
  std::function<void()> untimed;  // before each timed call, outside the figure
  std::function<bool()> call;
  std::vector<double> us;
};

void BM_lease_calls(benchmark::State& state) {
  forgemeter::lease_detail::CallBound setup_bound(bound());
  std::string error;
  auto raw = forgemeter::pg::Connection::open({.conninfo = conninfo(), .application_name = "forgemeter-bench"},
                                              setup_bound, error);
  // The store's tables are dropped first: the bench measures the current layout.
  if (!raw ||
      !raw->exec_simple("SET plan_cache_mode = force_generic_plan;"
                        "PREPARE bench_select1 AS SELECT 1;"
                        "DROP TABLE IF EXISTS forgemeter_bench_leases, forgemeter_bench_leases_terms;"
                        "CREATE TABLE IF NOT EXISTS forgemeter_bench_floor (k int PRIMARY KEY, v bigint);"
                        "CREATE UNLOGGED TABLE IF NOT EXISTS forgemeter_bench_floor_u (k int PRIMARY KEY, v bigint);"
                        "INSERT INTO forgemeter_bench_floor VALUES (1, 0) ON CONFLICT DO NOTHING;"
                        "INSERT INTO forgemeter_bench_floor_u VALUES (1, 0) ON CONFLICT DO NOTHING;"
                        "PREPARE bench_update AS UPDATE forgemeter_bench_floor SET v = v + 1 WHERE k = 1;"
                        "PREPARE bench_update_u AS UPDATE forgemeter_bench_floor_u SET v = v + 1 WHERE k = 1",
                        setup_bound)
           .ok()) {
    state.SkipWithError(("cannot connect or prepare: " + error).c_str());
    return;
  }
  forgemeter::PostgresStore store({.conninfo = conninfo(), .table = "forgemeter_bench_leases", .max_connections = 1});
  store.acquire("bench-held", "holder", t0, 1000h, bound());
  store.acquire("bench-renew", "me", t0, 10s, bound());
  store.acquire("bench-hands", "a", t0, 10s, bound());
  // bench-first-N: one held lease per timed first poll (the store has seen none of them).
  const long polls = static_cast<long>(state.max_iterations) * kBlock;
  if (!raw->exec_simple(("INSERT INTO forgemeter_bench_leases SELECT 'bench-first-' || g, 'holder', 9e15, 0, 1 "
                         "FROM generate_series(1, " +
                         std::to_string(polls) +
                         ") g;"
                         "INSERT INTO forgemeter_bench_leases_terms SELECT 'bench-first-' || g, 1, 10000 "
                         "FROM generate_series(1, " +
                         std::to_string(polls) + ") g")
                            .c_str(),
                        setup_bound)
           .ok()) {
    state.SkipWithError("cannot create the held leases of acquire_refused_first");
    return;
  }
  // The store's own statements on the bare connection, to time the full acquire alone.
  // (RESET: the baselines keep the server's synchronous_commit, which prepare_sql raises to `on`.)
  const auto prepare_store = forgemeter::pg::prepare_sql(forgemeter::pg::quoted_tables("forgemeter_bench_leases"),
                                                         forgemeter::pg::channel_of("forgemeter_bench_leases"));
  if (!raw->exec_simple((prepare_store + "RESET synchronous_commit;").c_str(), setup_bound).ok()) {
    state.SkipWithError("cannot prepare the store's statements on the bare connection");
    return;
  }
  auto full_acquire = [&](std::int64_t now_ms) {
    const std::string at = std::to_string(now_ms), until = std::to_string(now_ms + 10'000);
    const char* params[] = {"bench-held", "candidate", at.c_str(), until.c_str()};
    forgemeter::lease_detail::CallBound b(bound());
    auto out = raw->exec_prepared(forgemeter::pg::kAcquire, params, b);
    return out.ok() && out.rows.count() == 1 && out.rows.text(0, 0) == "f";
  };
  int i = 0, first = 0, hands = 0;
  auto stamp = [&] { return t0 + std::chrono::milliseconds(i); };
  auto bare = [&](const char* statement) {
    forgemeter::lease_detail::CallBound b(bound());
    return raw->exec_prepared(statement, {}, b).ok();
  };
  std::vector<Kind> kinds = {
      {"select1", {}, [&] { return bare("bench_select1"); }, {}},
      {"update_logged", {}, [&] { return bare("bench_update"); }, {}},
      {"update_unlogged", {}, [&] { return bare("bench_update_u"); }, {}},
      {"inspect", {}, [&] { return store.inspect("bench-held", bound()).status == LeaseState::Status::held; }, {}},
      {"acquire_refused",
       {},
       [&] { return store.acquire("bench-held", "candidate", stamp(), 10s, bound()).status == LeaseStatus::refused; },
       {}},
      {"acquire_refused_first",
       {},  // a candidate's first poll of a lease its store knows nothing of (the guard read, as every poll)
       [&] {
         auto name = "bench-first-" + std::to_string(++first);
         return store.acquire(name, "candidate", stamp(), 10s, bound()).status == LeaseStatus::refused;
       },
       {}},
      {"acquire_statement_refused",
       {},  // the full acquire statement alone, refused (what a candidate that lost a race to a free lease sends)
       [&] { return full_acquire(1'790'000'000'000 + i); },
       {}},
      {"acquire_taken",
       // A change of hands: the holder released (untimed), the other owner takes it: term + 1, a durable write.
       [&] { store.release("bench-hands", hands % 2 ? "b" : "a", bound()); },
       [&] {
         const char* taker = ++hands % 2 ? "b" : "a";
         return store.acquire("bench-hands", taker, stamp(), 10s, bound()).status == LeaseStatus::granted;
       },
       {}},
      {"acquire_granted",
       {},  // the holder's re-acquire
       [&] { return store.acquire("bench-acquire", "me", stamp(), 10s, bound()).status == LeaseStatus::granted; },
       {}},
      {"renew",
       {},
       [&] { return store.renew("bench-renew", "me", stamp(), 10s, bound()).status == LeaseStatus::granted; },
       {}},
      {"release",
       [&] {  // a change of hands (a durable write), then a renewal as a holder's last call before release would be
         store.acquire("bench-release", "me", stamp(), 10s, bound());
         store.renew("bench-release", "me", stamp(), 10s, bound());
       },
       [&] { return store.release("bench-release", "me", bound()).status == LeaseStatus::released; },
       {}},
  };
  for (auto& k : kinds) k.us.reserve(static_cast<std::size_t>(state.max_iterations) * kBlock);
  for (auto _ : state) {
    double round = 0;
    for (auto& k : kinds) {
      for (int b = 0; b < kBlock; ++b) {
        ++i;
        if (k.untimed) k.untimed();
        auto start = Clock::now();
        if (!k.call()) {
          state.SkipWithError((std::string(k.name) + " failed").c_str());
          return;
        }
        double d = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
        k.us.push_back(d);
        round += d;
      }
    }
    state.SetIterationTime(round / 1e6);
  }
  double base = 0;
  forgemeter::lease_detail::CallBound show_bound(bound());
  auto settings = raw->exec_simple(
      "SELECT current_setting('fsync') || ' ' || current_setting('synchronous_commit') || ' ' || "
      "current_setting('full_page_writes')",
      show_bound);
  std::fprintf(stderr, "server fsync / synchronous_commit / full_page_writes: %s\n",
               settings.ok() && settings.rows.count() == 1 ? std::string(settings.rows.text(0, 0)).c_str() : "?");
  std::fprintf(stderr, "%-26s %10s %10s %8s\n", "call", "median_us", "p99_us", "x_select1");
  for (auto& k : kinds) {
    std::sort(k.us.begin(), k.us.end());
    double med = k.us[k.us.size() / 2];
    double p99 = k.us[std::min(k.us.size() - 1, k.us.size() * 99 / 100)];
    if (base == 0) base = med;
    state.counters[std::string(k.name) + "_med"] = med;
    state.counters[std::string(k.name) + "_p99"] = p99;
    state.counters[std::string(k.name) + "_x"] = med / base;
    std::fprintf(stderr, "%-26s %10.1f %10.1f %8.2f\n", k.name, med, p99, med / base);
  }
}

}  // namespace

// Clean handovers between two stores on the same server (own pools, own
// listening sessions).
void BM_handover(benchmark::State& state) {
  forgemeter::PostgresStore a({.conninfo = conninfo(), .table = "forgemeter_bench_handover"});
  forgemeter::PostgresStore b({.conninfo = conninfo(), .table = "forgemeter_bench_handover"});
  fmbench::handovers(state, a, b, "PostgreSQL");
}

BENCHMARK(BM_lease_calls)->Iterations(200)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_handover)->Iterations(1)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
