// duration_text.h — durations as people read and write them, one rule for the
// library's messages and the command line alike: 3m, 1m30s, 1.5s, 250ms,
// 0.25ms, 2h30m, 1h0m5s. What duration_text() prints, parse_duration() reads.
// Internal to the rooms (not installed). Thread-safety: pure functions.
#pragma once

// FORGEMETER_API here: exported for forgemeter's other components (the
// transport, the lease), not API.
#include "forgemeter/export.h"

#include <optional>
#include <string>
#include <string_view>

#include "forgemeter/clock.h"

namespace forgemeter::core_detail {

// The shortest exact spelling down to the millisecond (microseconds below 1 ms).
FORGEMETER_API std::string duration_text(Duration d);

// Parts of a number (digits, an optional fraction) and a unit — h, m, s, ms —
// largest unit first, each at most once: "90s", "1m30s", "1.5s", "500ms",
// "2h30m", "1h0m5s". nullopt for anything else, a negative or empty text, or
// a total past kMaxParsedDuration. Rounds to the nanosecond.
std::optional<Duration> parse_duration(std::string_view text) noexcept;
inline constexpr Duration kMaxParsedDuration = std::chrono::hours(24 * 366 * 100);  // a century: no wrap in ns
// The same form read to its length in nanoseconds, of any size (up to 18
// digits a part: no overflow), for a caller that stops a long one itself
// (`report --since -4000000h` stops at the earliest instant it can name).
std::optional<long double> parse_duration_length(std::string_view text) noexcept;

}  // namespace forgemeter::core_detail
