// Validation of a CampaignSpec and the names of the campaign's enums.
#include <fmt/format.h>

#include "core/duration_text.h"
#include "forgemeter/campaign.h"

namespace forgemeter {
namespace {

Duration default_window(Duration ttl) { return ttl - (ttl + std::chrono::nanoseconds(5)) / 6; }  // T − ⌈T/6⌉

}  // namespace

std::optional<std::string> check_campaign_spec(const CampaignSpec& spec) {
  using namespace std::chrono;
  using core_detail::duration_text;
  if (auto why = check_lease_args(spec.name, spec.owner)) return "campaign: " + *why;
  if (spec.owner.size() > kCampaignOwnerMaxBytes)
    return fmt::format("campaign: owner is {} bytes, more than {} (the store gets it with a {}-byte tag)",
                       spec.owner.size(), kCampaignOwnerMaxBytes, kCampaignTagBytes);
  const auto ttl = lease_ttl(spec.ttl);
  if (ttl < kMinCampaignTtl)
    return fmt::format("campaign: TTL {} is under {} (renewals every TTL/3 need at least 1ms)", duration_text(spec.ttl),
                       duration_text(kMinCampaignTtl));
  if (ttl > kMaxCampaignTtl) return fmt::format("campaign: TTL {} is over 366 days", duration_text(spec.ttl));
  if (spec.retry && (*spec.retry <= Duration::zero() || *spec.retry >= spec.ttl))
    return fmt::format("campaign: retry {} must be above zero and under the TTL {} (leave it unset for TTL/3)",
                       duration_text(*spec.retry), duration_text(spec.ttl));
  if (spec.serve_for) {
    // Exact in nanoseconds: W − kStampSlack > T/3 ⇔ 3·(W − kStampSlack) > T,
    // whose least solution is ⌊T/3⌋ + 1 ms; W ≤ T − ⌈T/6⌉ ⇔ 6·(T − W) ≥ T.
    const Duration t = ttl, w = *spec.serve_for, lo = t / 3 + 1ms, hi = default_window(t);
    if (3 * (w - kStampSlack) <= t || w > hi)
      return fmt::format("campaign: serving window {} must be from {} (TTL/3 + 1ms) to {} (TTL − TTL/6) for TTL {}",
                         duration_text(w), duration_text(lo), duration_text(hi), duration_text(ttl));
  }
  return std::nullopt;
}

Duration serving_window(const CampaignSpec& spec) {
  return spec.serve_for.value_or(default_window(lease_ttl(spec.ttl)));
}

std::string_view to_string(LeaseEvent::Kind k) noexcept {
  using K = LeaseEvent::Kind;
  switch (k) {
    case K::elected: return "elected";
    case K::renewed_late: return "renewed_late";
    case K::lost: return "lost";
    case K::stepped_down: return "stepped_down";
    case K::released: return "released";
    case K::store_unreachable: return "store_unreachable";
    case K::store_reachable: return "store_reachable";
    case K::owner_in_use: return "owner_in_use";
    case K::term_exhausted: return "term_exhausted";
    case K::resigned: return "resigned";
    case K::clock_differs: return "clock_differs";
  }
  return "unknown";
}

std::string_view to_string(CampaignEnd e) noexcept {
  switch (e) {
    case CampaignEnd::stopped: return "stopped";
    case CampaignEnd::work_returned: return "work_returned";
    case CampaignEnd::term_ended: return "term_ended";
  }
  return "unknown";
}

}  // namespace forgemeter
