// refusal.h — what the proxy answers itself, in the forge's own shape so
// that clients back off unchanged: a status, headers and GitHub's JSON body
// `{"message": …, "documentation_url": …}` (made by nlohmann-json: no one's
// text is pasted into JSON). Every refusal carries `X-Forgemeter-Refusal`
// (the reason's code, for people and tests: the forge never sends it).
//
//   400  a bad lane, header or installation (nothing sent)
//   403  a lane's reserve or a spent budget: X-RateLimit-Remaining: 0,
//        X-RateLimit-Reset (epoch seconds) and Retry-After (seconds to it)
//   429  a wait past --max-wait, a full queue, a pause, a gate: Retry-After
//   503  an elected lane this replica does not lead: Retry-After, and the
//        body names the holder and its term (lane_not_led)
//   502  the upstream unreachable (name, connect, TLS, dropped, redirects)
//   504  the upstream too slow
// refusal_for() maps a failed exchange that has no answer of the forge's
// (Response::status kNoAnswer) to one of these; an answer the forge gave
// (its own 403, its 429) is passed on as it came, not replaced.
// Thread-safety: pure functions. Errors: none (but std::bad_alloc).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "forgemeter/clock.h"
#include "forgemeter/exchange.h"
#include "serve/exchange.h"

namespace forgemeter::proxy {

struct Refusal {
  int status = 0;
  std::vector<serve::Field> headers;
  std::string body;
};

inline constexpr std::string_view kRefusalHeader = "X-Forgemeter-Refusal";

Refusal bad_request(std::string_view message, std::string_view code = "bad_request");
// A spent budget or a reserve reached: 403 (or `status`, 429) until `reset`.
Refusal budget_refused(std::string_view message, std::string_view code, UtcMillis reset, UtcMillis now,
                       int status = 403);
// 429: come back after `retry_after` (at least a second).
Refusal too_busy(std::string_view message, std::string_view code, std::chrono::seconds retry_after);
// 503: `lane` is elected (forgemeter proxy --elect) and this replica does
// not lead it; `holder` ("" when nobody holds it) leads in `term`. The body
// adds "lane", "holder" and "term" to GitHub's two fields.
Refusal lane_not_led(std::string_view lane, std::string_view holder, std::uint64_t term,
                     std::chrono::seconds retry_after);
Refusal upstream_unreachable(std::string_view code);  // 502
Refusal upstream_timeout();                           // 504

struct RefusalContext {
  UtcMillis now{};
  std::optional<UtcMillis> reset;        // when the budget resets, when known
  std::chrono::seconds retry_after{60};  // for a wait or pause whose end is not known
};

// The refusal for an exchange that failed without the forge's answer.
Refusal refusal_for(TransportErrc code, const RefusalContext& context);

}  // namespace forgemeter::proxy
