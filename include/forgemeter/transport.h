// forgemeter/transport.h — the metered HTTP transport a forge client sends through.
//
//   forgemeter::Meter meter;
//   forgemeter::Transport transport({.meter = &meter});
//   forgemeter::Request req{.url = "https://api.github.com/repos/o/r/pulls/7",
//                           .installation = 101, .bearer = token};
//   forgemeter::Response res = transport.perform(req);
//   if (!res.ok()) log(res.error.message);     // a failed exchange is a value
//
// Every request put on the wire — each attempt, redirect hop, libcurl resend
// and retry, and an attempt that failed before sending — is one
// Meter::record_request charged to that request's host and API, and one
// Meter::record_answer (its status, or kNoAnswer); a request a lane gate or
// reserve refuses is Meter::record_refused. Redirects are followed (unless
// the request says not), the credential kept to its origin; TLS is always
// verified. Request, Response and TransportErrc: forgemeter/exchange.h. How,
// on libcurl: docs/transport-internals.md. Retries, pauses, reserves, pacing,
// secondary limits: forgemeter/rate_limits.h, docs/rate-limits.md. The
// cache: forgemeter/cache.h, docs/cache.md.
//
// Thread-safety: perform(), figures(), cache_figures() and the gate methods
// may be called from any number of threads at once; the figures never wait
// on the wire. Ownership: the Transport owns its libcurl handles; the Meter
// and Clock in TransportOptions are borrowed and must outlive it. Errors:
// perform() never throws (but std::bad_alloc); the constructor throws
// std::invalid_argument naming the field for an unusable option, and
// std::runtime_error if libcurl (or, with a cache, its random key) cannot
// start. A request timeout past 100000h (or a negative per-hop one) is
// TransportErrc::invalid_request.
#pragma once

#include "forgemeter/export.h"

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "forgemeter/cache.h"
#include "forgemeter/clock.h"
#include "forgemeter/exchange.h"
#include "forgemeter/lane.h"
#include "forgemeter/meter.h"
#include "forgemeter/rate_limits.h"

namespace forgemeter {

struct FORGEMETER_API TransportOptions {
  Meter* meter = nullptr;        // required
  const Clock* clock = nullptr;  // retry waits and refusal stamps; nullptr: the meter's clock
  // curl --resolve entries: "host:port:address[,address…]".
  std::vector<std::string> resolve{};
  // TLS peers and host names are always verified (HTTP/2 when the server
  // offers it by ALPN), against the system's CA bundle unless one is given:
  std::string ca_file{};                            // PEM bundle to verify against instead of the system's
  std::string ca_pem{};                             // the same, in memory
  bool insecure_skip_tls_verify_for_tests = false;  // never in production
  int max_redirects = 10;
  std::chrono::milliseconds connect_timeout{10'000};  // 0 to 100000h
  std::chrono::milliseconds timeout{60'000};          // per hop; 0 = none
  // Ask for a compressed answer (Accept-Encoding: each encoding libcurl can
  // decode) and hand over Response::body decoded, as curl's --compressed.
  bool decompress = false;
  std::string user_agent = "forgemeter";
  // When non-empty, every request carries its lane in this header (for a
  // server that counts by lane, e.g. the loopback forge's X-Forgemeter-Lane).
  std::string lane_header{};
  RateLimitOptions rate_limits{};  // retries, pauses, reserves, pacing, secondary limits
  CacheOptions cache{};            // off unless cache.max_bytes > 0
  // figures() keeps the first this many distinct installations (0 aside)
  // apart and folds later ones into one `other` (MeterOptions' bound's name).
  std::size_t max_installations = 1000;
};

class FORGEMETER_API Transport {
 public:
  explicit Transport(TransportOptions options);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Sends `request`, following redirects and retrying per the options.
  Response perform(const Request& request);

  // Elected lanes: while `lane` is gated, a request in it is sent only when
  // `valid()` reads true at the moment it would be sent (each hop and retry
  // asks again); otherwise it is refused with TransportErrc::lane_refused and
  // counted with Meter::record_refused. `valid` must be cheap, thread-safe
  // and must not call back into this Transport. Gating a gated lane replaces
  // its gate. With no lane gated the check is a single atomic load.
  void gate_lane(Lane lane, std::function<bool()> valid);
  void ungate_lane(Lane lane);

  const TransportOptions& options() const noexcept;
  // Requests in flight and waiting now, per installation (plain data; a few
  // locks held briefly, never across a wait or an exchange).
  TransportFigures figures() const;
  // What the cache holds now (all zero without one).
  CacheFigures cache_figures() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace forgemeter
