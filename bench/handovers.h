// bench/handovers.h — the clean-handover latency of a store, as a distribution:
// `n` handovers between two campaigns on one lease (test/lease/handover.h),
// TTL 9 s and retry 3 s, from the holder's work returning (its release follows)
// to the successor's work starting, the successor woken by the store. Beside
// it, the figure without a wake-up, computed from retry: the successor polls
// every retry at a phase independent of the release, so it waits U(0, retry)
// plus a round trip — mean retry/2, worst retry.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "lease/handover.h"

namespace fmbench {

inline void handovers(benchmark::State& state, forgemeter::LeaseStore& a, forgemeter::LeaseStore& b, const char* store,
                      int n = 50) {
  using namespace std::chrono_literals;
  constexpr auto kRetry = 3s;
  std::vector<double> ms;
  for (auto _ : state) {
    for (int i = 0; i < n; ++i) {
      auto h = forgemeter::testing::handover(i % 2 ? b : a, i % 2 ? a : b, "bench-handover", true, 9s, kRetry);
      if (!h || h->max_serving != 1) {
        state.SkipWithError(!h ? "a handover did not happen within 20 s" : "two terms at once");
        return;
      }
      ms.push_back(std::chrono::duration<double, std::milli>(h->took).count());
    }
  }
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) { return ms[std::min(ms.size() - 1, static_cast<std::size_t>(q * ms.size()))]; };
  const double mean = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
  state.counters["handover_p50_ms"] = at(0.5);
  state.counters["handover_p90_ms"] = at(0.9);
  state.counters["handover_max_ms"] = ms.back();
  std::fprintf(stderr,
               "%s: %zu clean handovers (TTL 9 s, retry 3 s), woken: min %.2f  p50 %.2f  p90 %.2f  max %.2f  "
               "mean %.2f ms; polling instead (computed): mean %.0f ms, worst %.0f ms (+ a round trip)\n",
               store, ms.size(), ms.front(), at(0.5), at(0.9), ms.back(), mean,
               std::chrono::duration<double, std::milli>(kRetry).count() / 2,
               std::chrono::duration<double, std::milli>(kRetry).count());
}

}  // namespace fmbench
