#include "cli/fetch/exit.h"

#include <fmt/format.h>

#include "core/shown_url.h"

namespace forgemeter::cli {

namespace {

int curl_code(TransportErrc code) noexcept {
  switch (code) {
    case TransportErrc::ok: return 0;
    case TransportErrc::invalid_request: return 3;
    case TransportErrc::resolve_failed: return 6;
    case TransportErrc::connect_failed: return 7;
    case TransportErrc::timeout:
    case TransportErrc::paced: return 28;  // paced: its turn would come past -m, a timeout
    case TransportErrc::tls_failed: return 35;
    case TransportErrc::cancelled: return 42;
    case TransportErrc::redirect_limit: return 47;
    case TransportErrc::connection_dropped: return 56;
    default: return 1;
  }
}

// Rate-limit refusals are the forge's answer, status and body included.
bool is_rate_limit_answer(TransportErrc code) noexcept {
  return code == TransportErrc::budget_exhausted || code == TransportErrc::secondary_rate_limited;
}

}  // namespace

bool answered(const Response& res) noexcept {
  return res.status != kNoAnswer && (res.ok() || is_rate_limit_answer(res.error.code));
}

int fetch_exit_code(const Response& res, bool fail_on_http_error) noexcept {
  if (!answered(res)) return res.ok() ? 1 : curl_code(res.error.code);
  return fail_on_http_error && res.status >= 400 ? kExitHttpError : 0;
}

std::string fetch_error_line(const Request& req, const Response& res, int exit_code) {
  if (exit_code == kExitHttpError)
    return core_detail::shown_url(
        fmt::format("forgemeter: ({}) {} {}: the server answered {}", exit_code, req.method, req.url, res.status));
  return core_detail::shown_url(fmt::format("forgemeter: ({}) {} {}: {}: {}", exit_code, req.method, req.url,
                                            to_string(res.error.code), res.error.message));
}

}  // namespace forgemeter::cli
