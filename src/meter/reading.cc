#include "meter/reading.h"

#include <bit>
#include <cstring>
#include <limits>

namespace forgemeter {

void RateLimitHeaders::offer(std::string_view name, std::string_view value) noexcept {
  if (const auto f = meter::rate_field(core_detail::trimmed(name, true)); f != meter::RateField::none) {
    std::string_view& kept = meter::field_of(*this, f);
    if (kept.empty() || meter::replaces(f, kept, value)) kept = value;
  }
}

namespace meter {

std::string_view& field_of(RateLimitHeaders& h, RateField f) noexcept {
  switch (f) {
    case RateField::limit: return h.limit;
    case RateField::remaining: return h.remaining;
    case RateField::reset: return h.reset;
    case RateField::retry_after: return h.retry_after;
    case RateField::resource: return h.resource;
    case RateField::plain_limit: return h.plain_limit;
    case RateField::plain_remaining: return h.plain_remaining;
    case RateField::plain_name: return h.plain_name;
    case RateField::plain_reset_time: return h.plain_reset_time;
    case RateField::plain_reset:
    case RateField::none: break;
  }
  return h.plain_reset;
}

bool replaces(RateField f, std::string_view kept, std::string_view fresh) noexcept {
  if (f != RateField::remaining && f != RateField::plain_remaining) return true;
  const auto now = parse_header_uint(fresh);
  if (!now) return false;  // no number never hides one
  const auto before = parse_header_uint(kept);
  return !before || *now < *before;
}

BudgetHeaders budget_headers(const RateLimitHeaders& h) noexcept {
  if (!h.remaining.empty() || h.plain_remaining.empty()) return {h.limit, h.remaining, h.reset, {}};
  return {h.plain_limit, h.plain_remaining, h.plain_reset, h.plain_reset_time};
}

bool lower(const Reading& a, const Reading& b) noexcept {
  if (a.remaining != b.remaining) return a.remaining < b.remaining;
  if (a.seen != b.seen) return a.seen < b.seen;
  if (a.reset != b.reset) return a.reset < b.reset;  // nullopt sorts first
  return a.limit < b.limit;
}

namespace {

// Eight ASCII bytes, the first in the lowest byte (little-endian load).
bool eight_digits(std::uint64_t w) noexcept {
  constexpr std::uint64_t kHigh = 0xF0F0F0F0F0F0F0F0ull, kThrees = 0x3030303030303030ull;
  // Every byte 0x30..0x3F, and still 0x3_ after adding 6: 0x30..0x39.
  return (w & kHigh) == kThrees && ((w + 0x0606060606060606ull) & kHigh) == kThrees;
}

// The value of eight decimal digits, the first the most significant.
std::uint64_t eight_digits_value(std::uint64_t w) noexcept {
  w -= 0x3030303030303030ull;  // each byte its digit
  w = w * 10 + (w >> 8);       // bytes 0, 2, 4, 6: two-digit numbers (the others are junk)
  // Bytes 0 and 4 times 10^6 and 10^2, bytes 2 and 6 times 10^4 and 1, summed in bits 32..63.
  constexpr std::uint64_t kPairs = 0x000000FF000000FFull;
  return (((w & kPairs) * (100 + (1000000ull << 32))) + (((w >> 16) & kPairs) * (1 + (10000ull << 32)))) >> 32;
}

}  // namespace

std::optional<std::uint64_t> parse_header_uint(std::string_view value) noexcept {
  value = core_detail::trimmed(value, true);
  const char* p = value.data();
  const char* end = p + value.size();
  if (p == end) return std::nullopt;
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  constexpr std::ptrdiff_t kSafeDigits = std::numeric_limits<std::uint64_t>::digits10;  // 19: never overflow
  const char* const first = p;
  std::uint64_t v = 0;
  if constexpr (std::endian::native == std::endian::little) {
    while (end - p >= 8 && (p - first) + 8 <= kSafeDigits) {  // eight at a time
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      if (!eight_digits(w)) break;  // the loop below finds the byte that is not a digit
      v = v * 100'000'000 + eight_digits_value(w);
      p += 8;
    }
  }
  for (; p < end; ++p) {
    const unsigned d = static_cast<unsigned char>(*p) - unsigned{'0'};
    if (d > 9) return std::nullopt;
    if (p - first >= kSafeDigits && (v > kMax / 10 || (v == kMax / 10 && d > kMax % 10))) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

std::optional<Reading> read_budget(const RateLimitHeaders& headers, UtcMillis seen) noexcept {
  using namespace std::chrono;
  const BudgetHeaders h = budget_headers(headers);
  auto remaining = parse_header_uint(h.remaining);
  if (!remaining) return std::nullopt;
  Reading r;
  r.remaining = *remaining;
  r.seen = seen;
  if (auto limit = parse_header_uint(h.limit); limit && *limit > 0) r.limit = limit;
  // Epoch seconds; a value below 10^9 (before 2001) is seconds from now.
  constexpr std::uint64_t kRelativeBelow = 1'000'000'000;
  constexpr std::uint64_t kFarFuture = 1ull << 40;  // keeps the arithmetic below in range
  std::optional<sys_seconds> at;
  if (auto reset = parse_header_uint(h.reset); reset && *reset < kFarFuture) {
    const auto now_s = floor<seconds>(seen);
    at = *reset < kRelativeBelow ? now_s + seconds{static_cast<std::int64_t>(*reset)}
                                 : sys_seconds{seconds{static_cast<std::int64_t>(*reset)}};
  } else if (core_detail::trimmed(h.reset, true).empty() && !h.reset_time.empty()) {
    at = parse_http_date(h.reset_time);
  }
  if (at && *at > seen && *at <= seen + days{31}) r.reset = at;
  return r;
}

namespace {

// Two ASCII digits at t[i], or -1.
int two_digits(std::string_view t, std::size_t i) noexcept {
  const unsigned a = static_cast<unsigned char>(t[i]) - unsigned{'0'},
                 b = static_cast<unsigned char>(t[i + 1]) - unsigned{'0'};
  return a > 9 || b > 9 ? -1 : static_cast<int>(a * 10 + b);
}

}  // namespace

std::optional<std::chrono::sys_seconds> parse_http_date(std::string_view value) noexcept {
  using namespace std::chrono;
  // "Sun, 06 Nov 1994 08:49:37 GMT"
  const std::string_view t = core_detail::trimmed(value, true);
  if (t.size() != 29 || t.substr(3, 2) != ", " || t[7] != ' ' || t[11] != ' ' || t[16] != ' ' || t[19] != ':' ||
      t[22] != ':' || t.substr(25) != " GMT")
    return std::nullopt;
  static constexpr std::string_view kMonths = "JanFebMarAprMayJunJulAugSepOctNovDec";
  const std::size_t m = kMonths.find(t.substr(8, 3));
  const int d = two_digits(t, 5), y1 = two_digits(t, 12), y2 = two_digits(t, 14), hh = two_digits(t, 17),
            mm = two_digits(t, 20), ss = two_digits(t, 23);
  if (m == std::string_view::npos || m % 3 != 0 || d < 0 || y1 < 0 || y2 < 0 || hh < 0 || hh > 23 || mm < 0 ||
      mm > 59 || ss < 0 || ss > 60)
    return std::nullopt;
  const year_month_day ymd{year{y1 * 100 + y2}, month{static_cast<unsigned>(m / 3 + 1)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) return std::nullopt;
  return sys_days{ymd} + hours{hh} + minutes{mm} + seconds{ss};
}

bool ResourceName::assign_named(std::string_view raw, Api api) noexcept {
  const std::string_view fallback = default_resource(api);
  raw = core_detail::trimmed(raw, true);
  if (raw.empty() || core_detail::iequals(raw, fallback)) return true;
  if (raw.size() > kMax) return false;
  for (std::size_t i = 0; i < raw.size(); ++i) text_[i] = core_detail::ascii_lower(raw[i]);
  size_ = raw.size();
  return true;
}

bool says_secondary_limit(std::string_view body) noexcept {
  constexpr std::string_view kWords = "secondary rate limit";
  body = body.substr(0, std::size_t{64} * 1024);
  for (std::size_t at = 0; body.size() - at >= kWords.size(); ++at) {
    at = body.find_first_of("sS", at);
    if (at == std::string_view::npos || body.size() - at < kWords.size()) return false;
    if (core_detail::istarts_with(body.substr(at), kWords)) return true;
  }
  return false;
}

namespace {

bool spent(const RateLimitHeaders& h) noexcept {
  const auto remaining = parse_header_uint(budget_headers(h).remaining);
  return remaining && *remaining == 0;
}

}  // namespace

bool class_needs_body(int status, const RateLimitHeaders& h, Api api) noexcept {
  return (status == 200 && api == Api::graphql) ||
         (status == 403 && core_detail::trimmed(h.retry_after, true).empty() && !spent(h));
}

AnswerClass classify(int status, const RateLimitHeaders& h, std::string_view body, Api api) noexcept {
  if (status == kNoAnswer) return AnswerClass::none;
  if (status == 304) return AnswerClass::not_modified;
  if (api == Api::graphql && (status == 200 || status == 403) && says_graphql_rate_limited(body))
    return AnswerClass::limited;
  if (status == 403 || status == 429) {
    if (spent(h)) return AnswerClass::limited;
    if (status == 429 || !core_detail::trimmed(h.retry_after, true).empty() || says_secondary_limit(body))
      return AnswerClass::secondary;
  }
  if (status >= 200 && status < 300) return AnswerClass::ok2xx;
  if (status >= 300 && status < 400) return AnswerClass::redirect3xx;
  if (status >= 400 && status < 500) return AnswerClass::client4xx;
  return AnswerClass::server5xx;
}

}  // namespace meter
}  // namespace forgemeter
