// forward.h — the proxy's engine: one client request read on the serving
// room's thread (headers filtered, lane picked, spender found, or a 400 or
// 429 at once), forwarded on a worker through the Transport (redirects not
// followed, an upload streamed), answered as the forge answered (hop-by-hop
// fields dropped, URLs on the upstream rewritten to the base the client
// addressed, Cache-Status added, the body streamed), or refused in the
// forge's own shape when nothing came back. `forgemeter proxy` serves it;
// the demo runs one per replica.
//
// Ownership: the Transport is borrowed and must outlive the Forwarder; the
// handler borrows the Forwarder (stop the server before destroying it).
// Thread-safety: the handler runs on the serving room's threads, at once on
// several; families() from any thread. Errors: the constructor throws
// std::invalid_argument for an upstream or public URL it cannot rewrite
// between, or an invalid named lane.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "forgemeter/clock.h"
#include "forgemeter/meter_metrics.h"
#include "forgemeter/transport.h"
#include "proxy/lane_book.h"
#include "serve/server.h"

namespace forgemeter::appauth {
class AppKeys;
}

namespace forgemeter::proxy {

struct ForwarderOptions {
  std::string upstream;    // the forge's base: scheme://host[:port][/path]
  std::string public_url;  // the base clients address, behind an ingress; "": the listener's scheme and Host
  LaneOptions lanes{};
  std::size_t max_in_flight = 128;             // requests forwarded at once (worker threads)
  std::size_t max_queue = 1024;                // waiting for a worker; past it 429 at once
  std::chrono::milliseconds patience{60'000};  // a client's stall before its answer is cut
  std::chrono::milliseconds max_wait{10'000};  // Request::max_wait: a longer wait is 429
  // Tests only: an elected lane's request carries its term upstream in this
  // header, for the loopback forge to check terms never go backwards.
  std::string term_header{};
  // The GitHub Apps whose verified JWTs share one installation token per
  // installation and scope (app_tokens.h); nullptr or empty: nothing held.
  std::shared_ptr<const appauth::AppKeys> apps{};
  std::chrono::milliseconds app_token_margin{60'000};  // a held token with less left is minted afresh
  // The time the JWTs are checked against and the learned and held tokens
  // expire on (the forge's: a demo on a fast clock); nullptr: system_clock().
  const Clock* clock = nullptr;
};

struct Route;
class LaneFence;

class Forwarder {
 public:
  // `fence`: the elected lanes (lane_fence.h), borrowed; nullptr: none.
  Forwarder(ForwarderOptions options, Transport& transport, LaneFence* fence = nullptr);
  ~Forwarder();  // stop()
  Forwarder(const Forwarder&) = delete;
  Forwarder& operator=(const Forwarder&) = delete;

  serve::Handler handler();
  // The proxy's own families (docs/proxy.md), `connections` open now.
  MeterMetrics families(std::size_t connections) const;
  // Runs what is queued and joins the workers; requests after it are 429.
  void stop();

 private:
  std::unique_ptr<Route> route_;
};

// Whether the serving room should hand this request's body over as it
// arrives (ServerOptions::stream_body): any body but one of a known length
// up to 1 MiB, which is read whole first and so may be retried.
bool streams_upload(const serve::ServeRequest& request);

}  // namespace forgemeter::proxy
