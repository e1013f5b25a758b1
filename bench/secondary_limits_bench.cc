// The Transport's secondary limits (src/transport/admission/secondary_limits.h), asked
// before every hop of a request charged to an installation, beside a
// baseline in the same run: a bare mutex + std::map<installation, count>
// find-or-insert and increment of the same keys (the least that counting per
// installation costs).
//   * BM_SecondaryBusy: one installation at 800 GETs a minute, under
//     GitHub's 900 REST points: its window holds ~800 entries, and each
//     admit expires one and adds one;
//   * BM_SecondaryMany/N: N installations round-robin at 10 GETs a minute
//     each, as a GitHub App on many installations; none goes idle, so
//     past 64 each look for idle ones walks them all and forgets none.
// Each admit is followed by its release. Time comes from a clock the bench
// steps (a fake clock: no sleeping, and each run sees the same instants).
#include <benchmark/benchmark.h>

#include <chrono>
#include <map>
#include <mutex>

#include "transport/admission/secondary_limits.h"

namespace {

using namespace std::chrono_literals;
namespace td = forgemeter::transport_detail;

class StepClock final : public forgemeter::Clock {
 public:
  forgemeter::UtcMillis now() const override { return {}; }
  forgemeter::SteadyTime steady_now() const override { return at; }
  bool wait_until(forgemeter::SteadyTime, std::stop_token) const override { return true; }
  forgemeter::SteadyTime at{};
};

// Admits and releases GETs of installations 1..n in turn, `per_minute` each,
// a minute's worth first (so the windows are as full as they stay), then
// one per benchmark iteration.
void admit_round_robin(benchmark::State& state, std::uint64_t n, std::uint64_t per_minute) {
  StepClock clock;
  td::SecondaryLimits limits(forgemeter::SecondaryLimitOptions{}, clock);
  const forgemeter::Duration step = std::chrono::duration_cast<forgemeter::Duration>(1min) / (per_minute * n);
  const td::RequestKind get{};
  std::uint64_t i = 0;
  const auto once = [&] {
    clock.at += step;
    const std::uint64_t installation = 1 + i++ % n;
    const td::SecondaryVerdict v = limits.admit(installation, get);
    limits.release(installation);
    return v.go;
  };
  for (std::uint64_t k = 0; k < per_minute * n; ++k) (void)once();
  bool held = false;
  for (auto _ : state) held |= !once();
  if (held) state.SkipWithError("a request was held: the bench's rate is over a limit");
}

void mutex_map_round_robin(benchmark::State& state, std::uint64_t n) {
  std::mutex mu;
  std::map<std::uint64_t, std::uint64_t> counts;
  std::uint64_t i = 0;
  for (auto _ : state) {
    std::lock_guard lock(mu);
    benchmark::DoNotOptimize(++counts[1 + i++ % n]);
  }
}

void BM_MutexMap_baseline(benchmark::State& state) {
  mutex_map_round_robin(state, static_cast<std::uint64_t>(state.range(0)));
}
BENCHMARK(BM_MutexMap_baseline)->Arg(1)->Arg(64)->Arg(1000)->Arg(10'000);

void BM_SecondaryBusy(benchmark::State& state) { admit_round_robin(state, 1, 800); }
BENCHMARK(BM_SecondaryBusy);

void BM_SecondaryMany(benchmark::State& state) {
  admit_round_robin(state, static_cast<std::uint64_t>(state.range(0)), 10);
}
BENCHMARK(BM_SecondaryMany)->Arg(64)->Arg(1000)->Arg(10'000);

}  // namespace

BENCHMARK_MAIN();
