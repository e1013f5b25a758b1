// The lease core's hot paths, each beside a baseline measured in the same run:
//   * Term::valid() — asked before every hop of a request in an elected lane —
//     against a bare steady_clock::now() (valid() is two atomic loads and one
//     clock reading through the Clock interface);
//   * MemoryStore renew and a refused acquire (a candidate polling) against a
//     bare std::mutex + std::map<std::string, ...> lookup-and-update;
//   * the clean-handover latency on one MemoryStore (bench/handovers.h).
#include <benchmark/benchmark.h>

#include <map>
#include <mutex>
#include <string>

#include "forgemeter/campaign.h"
#include "forgemeter/memory_store.h"
#include "handovers.h"
#include "lease/term_state.h"

namespace {

using namespace std::chrono_literals;
using forgemeter::Deadline;
using forgemeter::system_clock;

void BM_SteadyNow_baseline(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(std::chrono::steady_clock::now());
}
BENCHMARK(BM_SteadyNow_baseline)->Threads(1)->Threads(2);

void BM_TermValid(benchmark::State& state) {
  static auto term_state = std::make_shared<forgemeter::Term::State>(system_clock(), 1, system_clock().now(),
                                                                     system_clock().steady_now() + 1h);
  const forgemeter::Term term(term_state);
  for (auto _ : state) benchmark::DoNotOptimize(term.valid());
}
BENCHMARK(BM_TermValid)->Threads(1)->Threads(2);

void BM_MutexMap_baseline(benchmark::State& state) {
  std::mutex mu;
  std::map<std::string, std::pair<std::string, long>, std::less<>> m{{"merge-gate-sweeper", {"host-a", 0}}};
  long t = 0;
  for (auto _ : state) {
    std::lock_guard lock(mu);
    auto it = m.find(std::string_view("merge-gate-sweeper"));
    if (it->second.first == std::string_view("host-a")) it->second.second = std::max(it->second.second, ++t);
    benchmark::DoNotOptimize(it->second);
  }
}
BENCHMARK(BM_MutexMap_baseline);

void BM_MemoryStore_renew(benchmark::State& state) {
  forgemeter::MemoryStore store;
  const auto dl = Deadline::after(system_clock(), 1h);
  auto now = std::chrono::system_clock::now();
  store.acquire("merge-gate-sweeper", "host-a", now, 90s, dl);
  for (auto _ : state) {
    now += 1ms;
    benchmark::DoNotOptimize(store.renew("merge-gate-sweeper", "host-a", now, 90s, dl));
  }
}
BENCHMARK(BM_MemoryStore_renew);

void BM_MemoryStore_acquire_refused(benchmark::State& state) {
  forgemeter::MemoryStore store;
  const auto dl = Deadline::after(system_clock(), 1h);
  const auto now = std::chrono::system_clock::now();
  store.acquire("merge-gate-sweeper", "host-a", now, 1h, dl);
  for (auto _ : state) benchmark::DoNotOptimize(store.acquire("merge-gate-sweeper", "host-b", now, 90s, dl));
}
BENCHMARK(BM_MemoryStore_acquire_refused);

void BM_MemoryStore_handover(benchmark::State& state) {
  forgemeter::MemoryStore store;
  fmbench::handovers(state, store, store, "memory");
}
BENCHMARK(BM_MemoryStore_handover)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
