// Rate-limit readings: what one answer's headers say about its budget, the
// rules that decide which headers count (forgemeter/lines.h), the total order
// that picks an hour's lowest reading, and the answer classes.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

#include "forgemeter/lines.h"
#include "forgemeter/meter.h"

namespace forgemeter::meter {

struct Reading {
  std::uint64_t remaining = 0;
  std::optional<std::uint64_t> limit;
  UtcMillis seen{};
  std::optional<std::chrono::sys_seconds> reset;
  friend bool operator==(const Reading&, const Reading&) = default;
};

// The total order of readings: lower remaining, then seen earlier, then earlier
// reset (absent first), then lower limit (absent first). Never depends on the
// order readings arrive in.
bool lower(const Reading& a, const Reading& b) noexcept;

// A header name or value as the rules read it: without the spaces and tabs
// before it, nor the spaces, tabs, CR and LF after it.
std::string_view trim_header(std::string_view v) noexcept;

// A decimal integer of ASCII digits only (spaces and tabs around it allowed),
// or nullopt: signs, fractions, words and values past 2^64-1 are no integer.
std::optional<std::uint64_t> parse_header_uint(std::string_view value) noexcept;

// The reading an answer seen at `seen` gives, or nullopt when its
// X-RateLimit-Remaining is no integer >= 0.
std::optional<Reading> read_budget(const RateLimitHeaders& h, UtcMillis seen) noexcept;

// The class of an answer: `status` kNoAnswer is `none`; 403 and 429 are
// `limited` when the budget is spent (remaining 0) or a Retry-After is given.
// Any other status (a 1xx as final answer, or one outside 100-599: a broken
// answer) counts as 5xx.
AnswerClass classify(int status, const RateLimitHeaders& h) noexcept;

}  // namespace forgemeter::meter
