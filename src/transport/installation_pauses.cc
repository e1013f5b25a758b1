#include "transport/installation_pauses.h"

#include <curl/curl.h>

#include <algorithm>
#include <string>

#include "meter/reading.h"

namespace forgemeter::transport_detail {

void InstallationPauses::pause(std::uint64_t installation, const Pause& p, SteadyTime now) {
  core_detail::MutexLock lock(mu_);
  std::erase_if(pauses_, [&](const auto& e) { return e.second.until <= now; });
  for (auto& [id, existing] : pauses_)
    if (id == installation) {
      if (p.until > existing.until) existing = p;
      return;
    }
  pauses_.emplace_back(installation, p);
  any_.store(true, std::memory_order_release);
}

std::optional<Pause> InstallationPauses::active(std::uint64_t installation, SteadyTime now) const {
  core_detail::MutexLock lock(mu_);
  for (const auto& [id, p] : pauses_)
    if (id == installation && p.until > now) return p;
  return std::nullopt;
}

std::optional<std::chrono::seconds> retry_after_wait(std::string_view value, UtcMillis now) {
  value = core_detail::trimmed(value, true);
  if (value.empty()) return std::nullopt;
  if (auto secs = meter::parse_header_uint(value)) {
    constexpr std::uint64_t kMaxSeconds = 1ull << 40;  // keeps the arithmetic in range
    return std::chrono::seconds(static_cast<std::int64_t>(std::min(*secs, kMaxSeconds)));
  }
  const std::string date(value.substr(0, 64));
  const time_t at = curl_getdate(date.c_str(), nullptr);
  if (at < 0) return std::nullopt;
  const auto wait = std::chrono::sys_seconds(std::chrono::seconds(at)) - std::chrono::ceil<std::chrono::seconds>(now);
  return std::max(wait, std::chrono::seconds::zero());
}

}  // namespace forgemeter::transport_detail
