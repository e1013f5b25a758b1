// Rate-limit readings: which headers of an answer count (docs/rate-limits.md),
// what they say about one resource's budget, the total order that picks an
// hour's lowest reading, and the answer classes.
#pragma once

// FORGEMETER_API here: exported for forgemeter's other components (the
// transport, the lease), not API.
#include "forgemeter/export.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/ascii.h"
#include "forgemeter/lines.h"
#include "forgemeter/meter.h"

namespace forgemeter::meter {

// The headers RateLimitHeaders keeps, by name (any case).
enum class RateField : std::uint8_t {
  limit,
  remaining,
  reset,
  retry_after,
  resource,
  plain_limit,
  plain_remaining,
  plain_reset,
  plain_name,
  plain_reset_time,
  none
};
inline constexpr std::size_t kRateFields = 10;

// By length, then one letter, then the whole name: most header lines of an
// answer are none of these, and are told so without a call.
[[gnu::always_inline]] inline RateField rate_field(std::string_view name) noexcept {
  auto is = [&](std::string_view want) { return name == want || core_detail::iequals(name, want); };
  switch (name.size()) {
    case 11: return is("Retry-After") ? RateField::retry_after : RateField::none;
    case 14: return is("RateLimit-Name") ? RateField::plain_name : RateField::none;
    case 15:
      if ((name[10] | 0x20) == 'l') return is("RateLimit-Limit") ? RateField::plain_limit : RateField::none;
      return is("RateLimit-Reset") ? RateField::plain_reset : RateField::none;
    case 17:
      if ((name[12] | 0x20) == 'l') return is("X-RateLimit-Limit") ? RateField::limit : RateField::none;
      return is("X-RateLimit-Reset") ? RateField::reset : RateField::none;
    case 19:
      if ((name[12] | 0x20) == 'm') return is("RateLimit-Remaining") ? RateField::plain_remaining : RateField::none;
      return is("RateLimit-ResetTime") ? RateField::plain_reset_time : RateField::none;
    case 20: return is("X-RateLimit-Resource") ? RateField::resource : RateField::none;
    case 21: return is("X-RateLimit-Remaining") ? RateField::remaining : RateField::none;
    default: return RateField::none;
  }
}

// Whether an answer's repeated field `f` takes its new value `fresh` over
// the one kept: a remaining field the lower number (a duplicated
// X-RateLimit-Remaining reads as the lowest, whatever the order), any other
// field the last one.
FORGEMETER_API bool replaces(RateField f, std::string_view kept, std::string_view fresh) noexcept;

// The member of `h` that keeps field `f` (f != none).
std::string_view& field_of(RateLimitHeaders& h, RateField f) noexcept;

// The limit, remaining and reset a reading is made of: the X- headers when
// X-RateLimit-Remaining is present, else GitLab's unprefixed ones, whose
// RateLimit-ResetTime (an HTTP date) is read when RateLimit-Reset is absent.
struct BudgetHeaders {
  std::string_view limit, remaining, reset, reset_time;
};
FORGEMETER_API BudgetHeaders budget_headers(const RateLimitHeaders& h) noexcept;

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

// A decimal integer of ASCII digits only (spaces and tabs around it allowed),
// or nullopt: signs, fractions, words and values past 2^64-1 are no integer.
FORGEMETER_API std::optional<std::uint64_t> parse_header_uint(std::string_view value) noexcept;

// The reading an answer seen at `seen` gives, or nullopt when its remaining
// (budget_headers()) is no integer >= 0.
FORGEMETER_API std::optional<Reading> read_budget(const RateLimitHeaders& h, UtcMillis seen) noexcept;

// The header that names an answer's resource: X-RateLimit-Resource (GitHub),
// else GitLab's RateLimit-Name.
inline std::string_view resource_header(const RateLimitHeaders& h) noexcept {
  return h.resource.empty() ? h.plain_name : h.resource;
}

// RFC 9110's IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT", spaces and tabs
// around it allowed), or nullopt: the obsolete RFC 850 and asctime forms and
// anything else are no date.
FORGEMETER_API std::optional<std::chrono::sys_seconds> parse_http_date(std::string_view value) noexcept;

// A resource name as the meter keys it: ASCII lower-cased, "" for the API's
// default (an absent or blank header, or the default's own name).
class ResourceName {
 public:
  static constexpr std::size_t kMax = 64;  // longer names give no reading
  // False when `raw` (trimmed) is longer than kMax.
  bool assign(std::string_view raw, Api api) noexcept {
    size_ = 0;
    return raw.empty() || raw == default_resource(api) || assign_named(raw, api);  // the usual two inline
  }
  std::string_view view() const noexcept { return {text_.data(), size_}; }

 private:
  FORGEMETER_API bool assign_named(std::string_view raw, Api api) noexcept;
  std::array<char, kMax> text_;  // the first size_ bytes hold the name
  std::size_t size_ = 0;
};

// Whether an answer's body says "secondary rate limit" (any case), as
// GitHub's secondary limits do; only the first 64 KiB are read.
bool says_secondary_limit(std::string_view body) noexcept;

// Whether a GraphQL answer's body is GitHub's spent budget: a JSON object
// whose `errors` array holds an object with `"type": "RATE_LIMITED"`. Only
// the first 64 KiB are read, and parsed only when they hold the word
// RATE_LIMITED; malformed or cut JSON is read as far as it goes.
FORGEMETER_API bool says_graphql_rate_limited(std::string_view body) noexcept;

// The class of an answer (forgemeter/lines.h): `status` kNoAnswer is `none`;
// a 403/429 whose remaining reads 0, or a GraphQL 200/403 whose body
// says_graphql_rate_limited(), is `limited`; any other 429, or a 403 with a
// Retry-After or a body that says_secondary_limit(), is `secondary`. Any
// other status (a 1xx as final answer, or one outside 100-599: a broken
// answer) counts as 5xx.
FORGEMETER_API AnswerClass classify(int status, const RateLimitHeaders& h, std::string_view body = {},
                                    Api api = Api::rest) noexcept;

// Whether classify() of this status and these headers depends on the body:
// a caller that reads answers as they arrive waits for the body only then.
FORGEMETER_API bool class_needs_body(int status, const RateLimitHeaders& h, Api api = Api::rest) noexcept;

}  // namespace forgemeter::meter
