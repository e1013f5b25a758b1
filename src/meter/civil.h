// Hours and times of day as the lines write them (UTC, no time zones).
#pragma once

// FORGEMETER_API here: exported for forgemeter's other components (the
// transport, the lease), not API.
#include "forgemeter/export.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "forgemeter/clock.h"
#include "forgemeter/lines.h"

namespace forgemeter::meter {

inline constexpr std::int64_t kHourMs = 3'600'000;

// The index of the UTC hour holding `t` (floor of t / 1 h since the epoch).
inline std::int64_t hour_index(UtcMillis t) noexcept {
  const std::int64_t ms = t.time_since_epoch().count();
  return ms >= 0 ? ms / kHourMs : -((-ms + kHourMs - 1) / kHourMs);
}

inline std::chrono::sys_seconds hour_start(std::int64_t hour) noexcept {
  return std::chrono::sys_seconds{std::chrono::hours{hour}};
}

// Seconds after midnight UTC, [0, 86400).
FORGEMETER_API TimeOfDay time_of_day(std::chrono::sys_seconds t) noexcept;
inline TimeOfDay time_of_day(UtcMillis t) noexcept { return time_of_day(std::chrono::floor<std::chrono::seconds>(t)); }

// `YYYY-MM-DDTHH:00Z` (the minutes are always 00: lines name whole hours).
void append_hour(std::string& out, std::chrono::sys_seconds hour);
// `HH:MM:SSZ`.
FORGEMETER_API void append_time_of_day(std::string& out, TimeOfDay t);

// The same forms as strings, for reports and messages (any year: a hand-made
// instant outside 0000-9999 prints with more digits or a sign, never wraps).
std::string hour_text(std::chrono::sys_seconds t);     // 2026-09-30T15:00Z (t's minutes)
std::string instant_text(std::chrono::sys_seconds t);  // 2026-09-30T14:37:12Z
std::string clock_text(std::chrono::sys_seconds t);    // 14:37:12Z

// Exactly the forms above (years 0000-9999), or nullopt.
std::optional<std::chrono::sys_seconds> parse_hour(std::string_view text) noexcept;
std::optional<TimeOfDay> parse_time_of_day(std::string_view text) noexcept;

}  // namespace forgemeter::meter
