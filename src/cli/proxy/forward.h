// forward.h — one client request through the proxy: read on the serving
// room's thread (headers filtered, lane picked, spender found, or a 400 or
// 429 at once), forwarded on a worker through the Transport (redirects not
// followed, an upload streamed), answered as the forge answered (hop-by-hop
// fields dropped, URLs on the upstream rewritten to the base the client
// addressed, Cache-Status added, the body streamed), or refused in the
// forge's own shape when nothing came back.
// Thread-safety: the handler runs on the serving room's threads, at once on
// several; everything a Route names must outlive the server.
#pragma once

#include <chrono>
#include <string>

#include "cli/proxy/proxy_figures.h"
#include "cli/proxy/worker_pool.h"
#include "forgemeter/transport.h"
#include "proxy/credential_keys.h"
#include "proxy/installation_tokens.h"
#include "proxy/lane_book.h"
#include "serve/server.h"

namespace forgemeter::cli {

struct Route {
  Transport& transport;
  proxy::LaneBook& lanes;
  proxy::CredentialKeys& credentials;
  proxy::InstallationTokens& tokens;
  ProxyFigures& figures;
  WorkerPool& pool;
  std::string upstream;                        // the forge's base: scheme://host[:port][/path], no trailing '/'
  std::string public_url;                      // --public-url, or empty: the listener's scheme and the request's Host
  std::chrono::milliseconds patience{60'000};  // a client's stall before its answer is cut
  std::chrono::milliseconds max_wait{10'000};  // Request::max_wait
};

serve::Handler proxy_handler(Route& route);

// Whether the serving room should hand this request's body over as it
// arrives (any body but a small one whose length is known).
bool streams_upload(const serve::ServeRequest& request);

}  // namespace forgemeter::cli
