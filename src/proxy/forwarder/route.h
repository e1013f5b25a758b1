// route.h — what every request through one Forwarder shares: the Transport,
// the lane, credential and token books, the Apps and their held tokens,
// the figures and the workers.
// Internal to the forwarder room. Thread-safety: each member is.
#pragma once

#include <chrono>
#include <string>

#include "forgemeter/transport.h"
#include "proxy/credential_keys.h"
#include "proxy/forwarder/forward.h"
#include "proxy/forwarder/lane_fence.h"
#include "proxy/forwarder/proxy_figures.h"
#include "proxy/forwarder/worker_pool.h"
#include "proxy/held_tokens.h"
#include "proxy/installation_tokens.h"
#include "proxy/lane_book.h"

namespace forgemeter::proxy {

struct Route {
  Route(Transport& t, const ForwarderOptions& o, LaneFence* f)
      : transport(t),
        fence(f),
        clock(o.clock != nullptr ? *o.clock : system_clock()),
        lanes(o.lanes),
        tokens({.clock = &clock}),
        upstream(o.upstream),
        public_url(o.public_url),
        patience(o.patience),
        max_wait(o.max_wait),
        term_header(o.term_header),
        apps(o.apps),
        held({.margin = o.app_token_margin, .clock = &clock}),
        pool(o.max_in_flight, o.max_queue) {}

  Transport& transport;
  LaneFence* const fence;  // nullptr: no lane is elected
  const Clock& clock;      // JWTs checked, tokens learned and held, on it
  LaneBook lanes;
  CredentialKeys credentials;
  InstallationTokens tokens;
  ProxyFigures figures;
  const std::string upstream, public_url;
  const std::chrono::milliseconds patience, max_wait;
  const std::string term_header;
  const std::shared_ptr<const appauth::AppKeys> apps;  // nullptr or empty: nothing held
  HeldTokens held;
  WorkerPool pool;  // after what its tasks use: stopped and joined first
};

}  // namespace forgemeter::proxy
