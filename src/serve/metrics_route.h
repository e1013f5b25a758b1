// metrics_route.h — the handler of a metrics endpoint: GET /metrics answers
// the text `render` makes (Prometheus' text format 0.0.4), anything else
// 404. The probes (/healthz, /readyz) are the Server's own.
// Thread-safety: `render` is called on the server's threads, at once on
// several; it must be thread-safe and must not block on a store or a forge.
#pragma once

#include <functional>
#include <string>

#include "serve/server.h"

namespace forgemeter::serve {

Handler metrics_route(std::function<std::string()> render);

}  // namespace forgemeter::serve
