#include "meter/reading.h"

#include <algorithm>
#include <limits>

namespace forgemeter {

namespace {

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != b[i]) return false;
  }
  return true;
}

std::string_view trim(std::string_view v) noexcept {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r' || v.back() == '\n')) v.remove_suffix(1);
  return v;
}

}  // namespace

void RateLimitHeaders::offer(std::string_view name, std::string_view value) noexcept {
  name = trim(name);
  if (iequals(name, "x-ratelimit-remaining"))
    remaining = value;
  else if (iequals(name, "x-ratelimit-limit"))
    limit = value;
  else if (iequals(name, "x-ratelimit-reset"))
    reset = value;
  else if (iequals(name, "retry-after"))
    retry_after = value;
}

namespace meter {

bool lower(const Reading& a, const Reading& b) noexcept {
  if (a.remaining != b.remaining) return a.remaining < b.remaining;
  if (a.seen != b.seen) return a.seen < b.seen;
  if (a.reset != b.reset) return a.reset < b.reset;  // nullopt sorts first
  return a.limit < b.limit;
}

std::optional<std::uint64_t> parse_header_uint(std::string_view value) noexcept {
  value = trim(value);
  if (value.empty()) return std::nullopt;
  std::uint64_t v = 0;
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  constexpr std::size_t kSafeDigits = std::numeric_limits<std::uint64_t>::digits10;  // 19: never overflow
  const std::size_t safe = std::min(value.size(), kSafeDigits);
  std::size_t i = 0;
  for (; i < safe; ++i) {
    const unsigned d = static_cast<unsigned char>(value[i]) - unsigned{'0'};
    if (d > 9) return std::nullopt;
    v = v * 10 + d;
  }
  for (; i < value.size(); ++i) {  // the 20th digit on may overflow
    const unsigned d = static_cast<unsigned char>(value[i]) - unsigned{'0'};
    if (d > 9 || v > kMax / 10 || (v == kMax / 10 && d > kMax % 10)) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

std::optional<Reading> read_budget(const RateLimitHeaders& h, UtcMillis seen) noexcept {
  using namespace std::chrono;
  auto remaining = parse_header_uint(h.remaining);
  if (!remaining) return std::nullopt;
  Reading r;
  r.remaining = *remaining;
  r.seen = seen;
  if (auto limit = parse_header_uint(h.limit); limit && *limit > 0) r.limit = limit;
  // Epoch seconds; a value below 10^9 (before 2001) is seconds from now.
  constexpr std::uint64_t kRelativeBelow = 1'000'000'000;
  constexpr std::uint64_t kFarFuture = 1ull << 40;  // keeps the arithmetic below in range
  if (auto reset = parse_header_uint(h.reset); reset && *reset < kFarFuture) {
    const auto now_s = floor<seconds>(seen);
    const sys_seconds at = *reset < kRelativeBelow ? now_s + seconds{static_cast<std::int64_t>(*reset)}
                                                   : sys_seconds{seconds{static_cast<std::int64_t>(*reset)}};
    if (at > seen && at <= seen + days{31}) r.reset = at;
  }
  return r;
}

AnswerClass classify(int status, const RateLimitHeaders& h) noexcept {
  if (status == kNoAnswer) return AnswerClass::none;
  if (status == 304) return AnswerClass::not_modified;
  if (status == 403 || status == 429) {
    auto remaining = parse_header_uint(h.remaining);
    if ((remaining && *remaining == 0) || !trim(h.retry_after).empty()) return AnswerClass::limited;
  }
  if (status >= 200 && status < 300) return AnswerClass::ok2xx;
  if (status >= 300 && status < 400) return AnswerClass::redirect3xx;
  if (status >= 400 && status < 500) return AnswerClass::client4xx;
  return AnswerClass::server5xx;
}

}  // namespace meter
}  // namespace forgemeter
