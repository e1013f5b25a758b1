// PostgresStore latency: acquire, renew and release against a local server,
// beside a bare prepared `SELECT 1` round trip over the same kind of
// connection (the store's own async libpq connection), in the same run.
//
// Server: FORGEMETER_TEST_PG when set, else a private throwaway instance
// (initdb in /tmp, as test/support/pg_instance.h does).
//
// Each benchmark times every call itself and reports median and p99 in
// microseconds as counters, and `x_select1` = its median / SELECT 1's median
// (the target is <= 1.5: one round trip, a prepared statement).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <vector>

#include "forgemeter/postgres_store.h"
#include "lease/postgres/connection.h"
#include "support/pg_instance.h"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const forgemeter::WallTime t0{std::chrono::milliseconds(1'790'000'000'000)};
double select1_median_us = 0;

const std::string& conninfo() {
  static std::unique_ptr<fmtest::PrivatePg> own;
  static const std::string c = [] {
    if (const char* env = std::getenv("FORGEMETER_TEST_PG"); env && *env) return std::string(env);
    own = std::make_unique<fmtest::PrivatePg>();
    return own->conninfo();
  }();
  return c;
}

forgemeter::PostgresStore& store() {
  static forgemeter::PostgresStore s({.conninfo = conninfo(), .table = "forgemeter_bench_leases", .max_connections = 1});
  return s;
}

forgemeter::Deadline bound() { return forgemeter::Deadline::after(forgemeter::system_clock(), 5s); }

// Times `call` once per iteration (and `untimed` before it, outside the
// figure), then reports median/p99 and the ratio to SELECT 1.
template <typename Untimed, typename Call>
void measure(benchmark::State& state, Untimed untimed, Call call, bool baseline = false) {
  std::vector<double> us;
  us.reserve(static_cast<std::size_t>(state.max_iterations));
  for (auto _ : state) {
    untimed();
    auto start = Clock::now();
    if (!call()) {
      state.SkipWithError("the call failed");
      return;
    }
    double d = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    us.push_back(d);
    state.SetIterationTime(d / 1e6);
  }
  std::sort(us.begin(), us.end());
  double median = us[us.size() / 2];
  double p99 = us[std::min(us.size() - 1, us.size() * 99 / 100)];
  if (baseline) select1_median_us = median;
  state.counters["median_us"] = median;
  state.counters["p99_us"] = p99;
  if (select1_median_us > 0) state.counters["x_select1"] = median / select1_median_us;
}

// A bare connection of the store's own kind, with `setup` run on it, timing
// one prepared statement per iteration.
void measure_raw(benchmark::State& state, const char* setup, const char* statement, bool baseline) {
  forgemeter::pg::CallBound b(bound());
  std::string error;
  auto conn = forgemeter::pg::Connection::open({.conninfo = conninfo(), .application_name = "forgemeter-bench"}, b, error);
  if (!conn || !conn->exec_simple(setup, b).ok()) {
    state.SkipWithError(("cannot connect or prepare: " + error).c_str());
    return;
  }
  measure(
      state, [] {},
      [&] {
        forgemeter::pg::CallBound call(bound());
        return conn->exec_prepared(statement, {}, call).ok();
      },
      baseline);
}

void BM_select1(benchmark::State& state) {
  measure_raw(state, "PREPARE bench_select1 AS SELECT 1", "bench_select1", true);
}

// The floor of any write: a one-row UPDATE of a two-column table, prepared,
// autocommit — what every acquire/renew/release that changes the row pays.
void BM_update_floor(benchmark::State& state) {
  measure_raw(state,
              "CREATE TABLE IF NOT EXISTS forgemeter_bench_floor (k int PRIMARY KEY, v bigint);"
              "INSERT INTO forgemeter_bench_floor VALUES (1, 0) ON CONFLICT DO NOTHING;"
              "PREPARE bench_update AS UPDATE forgemeter_bench_floor SET v = v + 1 WHERE k = 1",
              "bench_update", false);
}

void BM_acquire(benchmark::State& state) {  // the holder's re-acquire: an upsert that updates
  int i = 0;
  measure(
      state, [] {},
      [&] {
        return store().acquire("bench-acquire", "me", t0 + std::chrono::milliseconds(++i), 10s, bound()).status ==
               forgemeter::LeaseStatus::granted;
      });
}

void BM_acquire_refused(benchmark::State& state) {  // a candidate's attempt on a held lease
  store().acquire("bench-held", "holder", t0, 1000h, bound());
  measure(
      state, [] {},
      [&] {
        return store().acquire("bench-held", "candidate", t0, 10s, bound()).status == forgemeter::LeaseStatus::refused;
      });
}

void BM_renew(benchmark::State& state) {
  store().acquire("bench-renew", "me", t0, 10s, bound());
  int i = 0;
  measure(
      state, [] {},
      [&] {
        return store().renew("bench-renew", "me", t0 + std::chrono::milliseconds(++i), 10s, bound()).status ==
               forgemeter::LeaseStatus::granted;
      });
}

void BM_inspect(benchmark::State& state) {  // a plain primary-key read through the store: its own overhead
  measure(
      state, [] {},
      [] { return store().inspect("bench-held", bound()).status == forgemeter::LeaseStatus::granted; });
}

void BM_release(benchmark::State& state) {  // each iteration re-takes the lease first, untimed
  int i = 0;
  measure(
      state, [&] { store().acquire("bench-release", "me", t0 + std::chrono::milliseconds(++i), 10s, bound()); },
      [] { return store().release("bench-release", "me", bound()).status == forgemeter::LeaseStatus::released; });
}

constexpr int kCalls = 4000;

}  // namespace

BENCHMARK(BM_select1)->Iterations(kCalls)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_update_floor)->Iterations(kCalls)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_acquire)->Iterations(kCalls)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_acquire_refused)->Iterations(kCalls)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_renew)->Iterations(kCalls)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_inspect)->Iterations(kCalls)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_release)->Iterations(kCalls)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_select1)->Name("BM_select1_again")->Iterations(kCalls)->UseManualTime()->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
