// routes.h — the elector's endpoints as serving-room handlers (docs/elector.md):
//
//   public listener                     GET /leases/NAME          the answer and its promise
//                                       GET /leases/NAME?wait=30s&after=ID   a long poll
//                                       GET /leases/NAME/events   Server-Sent Events
//   (one NAME served: compatibility)    GET /        {"name": holder}  (Kubernetes' leader-elector)
//                                       GET /sse     nais/elector's stream
//   admin listener                      POST /leases/NAME/resign  with Authorization: Bearer TOKEN
//                                       GET /metrics  the leases' Prometheus families
//
// No handler blocks: a long poll and a stream are answered later through
// their Reply. Thread-safety: the handlers may run on any server thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "elector/elector.h"
#include "serve/server.h"

namespace forgemeter::elector {

inline constexpr Duration kMaxWait = std::chrono::minutes(5);  // the longest long poll

serve::Handler public_routes(Elector& elector);
// `token`: the secret a resign must bear (non-empty). GET /metrics needs
// none: the leases' families, for a scraper, as the proxy's admin listener.
serve::Handler admin_routes(Elector& elector, std::string token);

// Whether `a` and `b` are the same secret, in a time that does not depend on
// where they differ.
bool same_secret(std::string_view a, std::string_view b) noexcept;

// The token in an --admin-token-file's text: its first line, trailing
// whitespace cut; nullopt when that is empty.
std::optional<std::string> token_from_file_text(std::string_view text);

}  // namespace forgemeter::elector
