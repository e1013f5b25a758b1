#include "proxy/refusal.h"

#include <nlohmann/json.hpp>

namespace forgemeter::proxy {
namespace {

constexpr std::string_view kRestDocs = "https://docs.github.com/rest";
constexpr std::string_view kPrimaryDocs =
    "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting";
constexpr std::string_view kSecondaryDocs =
    "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits";

Refusal github_shaped(int status, std::string_view message, std::string_view docs, std::string_view code,
                      const nlohmann::json& more = nlohmann::json::object()) {
  nlohmann::json body = {{"message", message}, {"documentation_url", docs}};
  body.update(more);
  Refusal r;
  r.status = status;
  // dump() replaces invalid UTF-8 rather than throwing: a message may quote a client's bytes.
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  r.headers = {{"Content-Type", "application/json; charset=utf-8"}, {std::string(kRefusalHeader), std::string(code)}};
  return r;
}

std::string whole_seconds(std::chrono::seconds s) { return std::to_string(std::max<std::int64_t>(1, s.count())); }

}  // namespace

Refusal bad_request(std::string_view message, std::string_view code) {
  return github_shaped(400, message, kRestDocs, code);
}

Refusal budget_refused(std::string_view message, std::string_view code, UtcMillis reset, UtcMillis now, int status) {
  Refusal r = github_shaped(status, message, kPrimaryDocs, code);
  const auto left = std::chrono::ceil<std::chrono::seconds>(reset - now);
  r.headers.emplace_back("X-RateLimit-Remaining", "0");
  r.headers.emplace_back("X-RateLimit-Reset",
                         std::to_string(std::chrono::ceil<std::chrono::seconds>(reset.time_since_epoch()).count()));
  r.headers.emplace_back("Retry-After", whole_seconds(left));
  return r;
}

Refusal too_busy(std::string_view message, std::string_view code, std::chrono::seconds retry_after) {
  Refusal r = github_shaped(429, message, kSecondaryDocs, code);
  r.headers.emplace_back("Retry-After", whole_seconds(retry_after));
  return r;
}

Refusal lane_not_led(std::string_view lane, std::string_view holder, std::uint64_t term,
                     std::chrono::seconds retry_after) {
  std::string message = "forgemeter proxy: lane " + std::string(lane) + " is elected and this replica does not lead it";
  message +=
      holder.empty() ? "; nobody holds it now" : "; " + std::string(holder) + " does, in term " + std::to_string(term);
  Refusal r = github_shaped(503, message, kRestDocs, to_string(TransportErrc::lane_refused),
                            {{"lane", lane}, {"holder", holder}, {"term", term}});
  r.headers.emplace_back("Retry-After", whole_seconds(retry_after));
  return r;
}

Refusal upstream_unreachable(std::string_view code) {
  return github_shaped(502, "forgemeter proxy: the upstream could not be reached", kRestDocs, code);
}

Refusal upstream_timeout() {
  return github_shaped(504, "forgemeter proxy: the upstream did not answer in time", kRestDocs, "timeout");
}

Refusal refusal_for(TransportErrc code, const RefusalContext& c) {
  const std::string_view name = to_string(code);
  const UtcMillis reset = c.reset.value_or(c.now + c.retry_after);
  switch (code) {
    case TransportErrc::invalid_request: return bad_request("forgemeter proxy: the request cannot be sent", name);
    case TransportErrc::timeout: return upstream_timeout();
    case TransportErrc::budget_exhausted:
      return budget_refused("API rate limit exceeded (forgemeter proxy: the budget is spent)", name, reset, c.now);
    case TransportErrc::budget_reserved:
      return budget_refused("API rate limit exceeded (forgemeter proxy: the lane's reserve is reached)", name, reset,
                            c.now);
    case TransportErrc::secondary_rate_limited:
    case TransportErrc::installation_paused:
      return too_busy("You have exceeded a secondary rate limit (forgemeter proxy: paused). Please wait.", name,
                      c.retry_after);
    case TransportErrc::paced:
      return too_busy("forgemeter proxy: the request would wait past its bound (pacing)", name, c.retry_after);
    case TransportErrc::lane_refused:
      return too_busy("forgemeter proxy: the lane is not elected on this replica", name, c.retry_after);
    case TransportErrc::cancelled: return too_busy("forgemeter proxy: the request was cancelled", name, c.retry_after);
    case TransportErrc::source_failed:  // the client's upload broke off: it ends short, and so does its request
      return bad_request("forgemeter proxy: the request body ended before its length", name);
    case TransportErrc::ok:
    case TransportErrc::resolve_failed:
    case TransportErrc::connect_failed:
    case TransportErrc::tls_failed:
    case TransportErrc::connection_dropped:
    case TransportErrc::redirect_limit:
    case TransportErrc::redirect_refused:
    case TransportErrc::sink_refused:
    case TransportErrc::other: break;
  }
  return upstream_unreachable(name);
}

}  // namespace forgemeter::proxy
