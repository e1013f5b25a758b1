// answer_stream.h — a proxied request on its worker: sent through the
// Transport, its answer handed to the client as it arrives (the head
// filtered and rewritten, Cache-Status added, a JSON body's URLs rewritten
// on the fly, a slow client waited for within the route's patience), or a
// refusal in the forge's shape when the forge never answered. An answer cut
// upstream mid-body is cut for the client too: never passed off as whole.
// Thread-safety: one call per request, on a worker.
#pragma once

#include <memory>
#include <string>

#include "forgemeter/exchange.h"
#include "proxy/forwarder/app_tokens.h"
#include "proxy/forwarder/route.h"
#include "proxy/url_rewrite.h"
#include "serve/exchange.h"

namespace forgemeter::proxy {

struct Outgoing {
  Request request;
  std::string lane;     // its name, for figures and the access log
  std::string spender;  // "101", "cred:…" or "" (anonymous)
  std::string path;     // the forge's path (the lane prefix stripped)
  std::shared_ptr<const UrlRewriter> rewriter;
  AppTokenAsk app_token;  // what the equalizer made of it
};

void forward(Route& route, Outgoing out, serve::Reply reply);

}  // namespace forgemeter::proxy
