#include "meter/retry_after.h"

#include <algorithm>
#include <cstdint>

#include "core/ascii.h"
#include "meter/reading.h"

namespace forgemeter::meter {

std::optional<std::chrono::seconds> retry_after_wait(std::string_view value, UtcMillis now) noexcept {
  value = core_detail::trimmed(value, true);
  if (value.empty()) return std::nullopt;
  constexpr std::uint64_t kMaxSeconds = 1ull << 40;  // keeps the arithmetic in range (a pause saturates)
  if (auto secs = parse_header_uint(value))
    return std::chrono::seconds(static_cast<std::int64_t>(std::min(*secs, kMaxSeconds)));
  if (std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::chrono::seconds(kMaxSeconds);  // past 2^64-1: as long as the most
  const auto at = parse_http_date(value);
  if (!at) return std::nullopt;
  const auto wait = *at - std::chrono::ceil<std::chrono::seconds>(now);
  return std::max(wait, std::chrono::seconds::zero());
}

}  // namespace forgemeter::meter
