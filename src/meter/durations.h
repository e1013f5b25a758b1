// Request durations (forgemeter_request_duration_seconds): a fixed-bucket
// histogram of answered hops, kept per host, API and answer class. A record
// finds its bucket by at most kDurationBounds comparisons and adds to fixed
// arrays: no allocation once a host's hour has its table.
#pragma once

#include <array>
#include <cstdint>
#include <limits>

#include "forgemeter/clock.h"
#include "forgemeter/lines.h"
#include "forgemeter/url.h"

namespace forgemeter::meter {

// The buckets' upper bounds (le), in milliseconds: 0.05 0.1 0.25 0.5 1 2.5 5 10 30 s.
inline constexpr std::array<std::uint64_t, 9> kDurationBoundsMs = {50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000};
inline constexpr std::size_t kDurationBounds = kDurationBoundsMs.size();
// Classes a duration is kept for: the answered ones, `2xx` to `5xx` (those
// before `none`; a hop with no answer has no answered instant).
inline constexpr std::size_t kTimedClasses = static_cast<std::size_t>(AnswerClass::none);
inline constexpr std::size_t kApis = 2;  // Api::rest, Api::graphql

// One observation, ready to add: its bucket (kDurationBounds = past the last
// bound, +Inf only) and its length in microseconds.
struct Timing {
  std::size_t bucket = 0;
  std::uint64_t micros = 0;
};

// The bounds in nanoseconds, Duration's tick.
inline constexpr std::array<Duration::rep, kDurationBounds> kDurationBoundsNs = [] {
  std::array<Duration::rep, kDurationBounds> ns{};
  for (std::size_t b = 0; b < kDurationBounds; ++b)
    ns[b] = static_cast<Duration::rep>(kDurationBoundsMs[b]) * 1'000'000;
  return ns;
}();

// The bucket of `elapsed` (>= 0): the first whose bound (le) it does not
// exceed. Forge latencies sit in the first few buckets: a short loop (fewer
// instructions than nine branch-free comparisons, measured).
inline Timing timing_of(Duration elapsed) noexcept {
  const Duration::rep ns = elapsed.count();
  std::size_t b = 0;
  while (b < kDurationBounds && ns > kDurationBoundsNs[b]) ++b;
  return {b, static_cast<std::uint64_t>(ns) / 1000};
}

// One class's observations: per bucket (not cumulative), and their sum.
struct Durations {
  std::array<std::uint64_t, kDurationBounds + 1> counts{};
  std::uint64_t sum_micros = 0;

  void add(const Timing& t) noexcept {
    ++counts[t.bucket];
    if (__builtin_add_overflow(sum_micros, t.micros, &sum_micros))
      sum_micros = std::numeric_limits<std::uint64_t>::max();
  }
  void add(const Durations& o) noexcept {
    for (std::size_t b = 0; b < counts.size(); ++b) counts[b] += o.counts[b];
    if (__builtin_add_overflow(sum_micros, o.sum_micros, &sum_micros))
      sum_micros = std::numeric_limits<std::uint64_t>::max();
  }
  std::uint64_t count() const noexcept {
    std::uint64_t n = 0;
    for (auto c : counts) n += c;
    return n;
  }
};

// A host's durations of one API, by class.
using ClassDurations = std::array<Durations, kTimedClasses>;

}  // namespace forgemeter::meter
