// The words of one exchange (forgemeter/exchange.h): what needs code.
#include "forgemeter/exchange.h"

namespace forgemeter {

std::string_view to_string(TransportErrc code) noexcept {
  switch (code) {
    case TransportErrc::ok: return "ok";
    case TransportErrc::invalid_request: return "invalid_request";
    case TransportErrc::resolve_failed: return "resolve_failed";
    case TransportErrc::connect_failed: return "connect_failed";
    case TransportErrc::tls_failed: return "tls_failed";
    case TransportErrc::timeout: return "timeout";
    case TransportErrc::connection_dropped: return "connection_dropped";
    case TransportErrc::redirect_limit: return "redirect_limit";
    case TransportErrc::redirect_refused: return "redirect_refused";
    case TransportErrc::budget_exhausted: return "budget_exhausted";
    case TransportErrc::secondary_rate_limited: return "secondary_rate_limited";
    case TransportErrc::lane_refused: return "lane_refused";
    case TransportErrc::installation_paused: return "installation_paused";
    case TransportErrc::budget_reserved: return "budget_reserved";
    case TransportErrc::cancelled: return "cancelled";
    case TransportErrc::paced: return "paced";
    case TransportErrc::sink_refused: return "sink_refused";
    case TransportErrc::source_failed: return "source_failed";
    case TransportErrc::other: return "other";
  }
  return "other";
}

std::string_view to_string(CacheOutcome outcome) noexcept {
  switch (outcome) {
    case CacheOutcome::no_cache: return "no_cache";
    case CacheOutcome::bypassed: return "bypassed";
    case CacheOutcome::stored: return "stored";
    case CacheOutcome::changed: return "changed";
    case CacheOutcome::not_stored: return "not_stored";
    case CacheOutcome::revalidated: return "revalidated";
    case CacheOutcome::coalesced: return "coalesced";
  }
  return "no_cache";
}

std::optional<std::string_view> Response::header(std::string_view name) const noexcept { return headers.find(name); }

}  // namespace forgemeter
