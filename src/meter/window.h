// window.h — where an hourly budget's window is heading, at the rate seen so
// far in it: the one model both the report ("When will it run out?",
// docs/report.md) and the meter's forgemeter_rate_limit_exhaustion_timestamp_seconds
// use.
//
// A core budget refills to its limit at its reset, so its window began an
// hour before. What it spent by a reading, limit − remaining over the time
// since the window began, is the rate; at that rate the remaining budget
// lasts remaining / rate. If that ends before the reset, that instant is when
// it runs out; otherwise the window ends with what the rate leaves.
//
// Pure arithmetic, exact (128-bit products, lasting rounded up, spending down).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace forgemeter::meter {

inline constexpr std::chrono::seconds kHourlyWindow = std::chrono::hours(1);

struct WindowRate {
  std::uint64_t spent = 0;                              // of the limit, since the window began
  std::chrono::seconds elapsed{0};                      // since the window began (resets − 1 h)
  std::optional<std::chrono::sys_seconds> runs_out_at;  // at this rate, before the reset
  std::optional<std::uint64_t> left_at_reset;           // or lasting to the reset with this many left
};

// The reading `remaining` of `limit` at `at`, its window resetting at
// `resets`. Expects remaining > 0 and resets − 1 h < at < resets (the caller
// says why not otherwise).
WindowRate project_window(std::uint64_t remaining, std::uint64_t limit, std::chrono::sys_seconds at,
                          std::chrono::sys_seconds resets);

}  // namespace forgemeter::meter
