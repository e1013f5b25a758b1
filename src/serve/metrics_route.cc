// metrics_route (metrics_route.h).
#include "serve/metrics_route.h"

#include <utility>

namespace forgemeter::serve {

Handler metrics_route(std::function<std::string()> render) {
  return [render = std::move(render)](const ServeRequest& r, Reply reply) {
    if (r.path != "/metrics") return void(reply.answer(404, {{"Content-Type", "text/plain"}}, "not found\n"));
    if (r.method != "GET" && r.method != "HEAD")
      return void(reply.answer(405, {{"Allow", "GET, HEAD"}, {"Content-Type", "text/plain"}}, "GET it\n"));
    reply.answer(200, {{"Content-Type", "text/plain; version=0.0.4; charset=utf-8"}, {"Cache-Control", "no-store"}},
                 render());
  };
}

}  // namespace forgemeter::serve
