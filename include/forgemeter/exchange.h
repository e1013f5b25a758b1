// forgemeter/exchange.h — one HTTP exchange as the Transport sees it: the
// Request a caller gives, the Response it gets back, why one failed.
//
//   forgemeter::Request req{.url = "https://api.github.com/repos/o/r", .installation = 101};
//   forgemeter::Response res = transport.perform(req);  // forgemeter/transport.h
//   if (res.ok() && res.status == 200) use(res.body);
//
// Plain values: the words the Transport (the wire, forgemeter/transport.h),
// its admission (forgemeter/rate_limits.h) and its cache
// (forgemeter/cache.h) share, so none of those needs another to name them.
// The rules a Request is sent by (redirects, the credential's origin,
// timeouts) are the Transport's: they are written here beside the fields.
//
// Thread-safety: as for any struct of strings (const from many threads at
// once). Errors: none are thrown (but std::bad_alloc); a failed exchange is
// a Response whose `error` says why.
#pragma once

#include "forgemeter/export.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "forgemeter/headers.h"
#include "forgemeter/lane.h"
#include "forgemeter/meter.h"
#include "forgemeter/url.h"

namespace forgemeter {

using Header = std::pair<std::string, std::string>;  // name, value

// What a Transport's cache (forgemeter/cache.h) did with a request: what a
// proxy's Cache-Status (RFC 9211) says, docs/cache.md#what-the-cache-did.
enum class CacheOutcome : std::uint8_t {
  no_cache,     // the Transport has no cache
  bypassed,     // the cache does not take the request: sent as written
  stored,       // sent (no kept answer to ask with); its answer is kept now
  changed,      // sent conditional: the kept answer changed, the new 200 is kept now
  not_stored,   // taken but nothing kept of it: not a keepable 200, or it failed
  revalidated,  // sent conditional: the forge's 304 returned the kept answer
  coalesced,    // not sent: a copy of an identical request's answer in flight
};

// A piece of the final answer's body, for Request::on_body: that answer's
// status and header block (the same for each piece), what the cache did
// with it (Response::cache, known before the first piece: a proxy's
// Cache-Status goes out with the head), and the bytes.
struct FORGEMETER_API BodyChunk {
  int status = kNoAnswer;
  const Headers* headers = nullptr;
  std::string_view bytes;
  CacheOutcome cache = CacheOutcome::no_cache;
};

// A request body read piece by piece (Request::body_source): writes the
// body's next bytes to the front of `buffer` and returns how many, 0 when
// the body has ended, or nullopt (or throws) to fail the request:
// TransportErrc::source_failed. Called on the thread of perform().
using BodySource = std::function<std::optional<std::size_t>(std::span<char> buffer)>;

// One request. Redirects are followed (unless follow_redirects is false) up
// to TransportOptions::max_redirects hops, only to http and https; POST
// becomes GET (body dropped) on 301/302/303 and stays POST on 307/308. The
// credential rule: `bearer` and any
// Authorization, Cookie, Proxy-Authorization, PRIVATE-TOKEN or JOB-TOKEN
// header (GitLab's tokens), any case, go only to the scheme,
// host and port of `url`; a hop elsewhere is sent without them.
struct FORGEMETER_API Request {
  std::string method = "GET";
  std::string url{};
  std::vector<Header> headers{};  // sent as given (but the credential rule)
  std::string body{};             // sent when non-empty, or always for POST/PUT/PATCH
  // The body read from a source as it is sent, never held whole (`body`
  // then empty; not for HEAD). With `body_length` it is sent with that
  // Content-Length and a source that ends sooner fails the request;
  // without, chunked (HTTP/1.1). Such a request is sent once: never
  // retried (a retryable answer stands), never redirected (a 3xx is its
  // answer, as with follow_redirects false), never cached.
  BodySource body_source{};
  std::optional<std::uint64_t> body_length{};  // only with body_source
  std::optional<Lane> lane{};                  // nullopt: current_lane() of the calling thread
  std::uint64_t installation = 0;              // GitHub App installation the request spends; 0 = none
  std::string bearer{};  // sent as `Authorization: Bearer <bearer>` to the request's own origin only
  // false: a 3xx is the answer as any other (status, headers with its
  // Location, body: to on_body too), one hop; the Location is never asked.
  bool follow_redirects = true;
  std::optional<std::chrono::milliseconds> connect_timeout{};  // nullopt: TransportOptions'
  std::optional<std::chrono::milliseconds> timeout{};          // whole exchange of one hop
  // The whole request (every hop, retry and wait), as curl's -m, measured on
  // TransportOptions::clock; nullopt or <= 0: none. Running out is
  // TransportErrc::timeout; a retry that would wait past it is not made (the
  // answer or failure at hand stands; a secondary limit's is
  // secondary_rate_limited), a pause past it is installation_paused, a
  // pacing or secondary-limit wait past it (or its own timeout) `paced`.
  std::optional<std::chrono::milliseconds> total_timeout{};
  // The longest a pause, pacing or secondary-limit wait may hold it before
  // it is sent (a proxy answers 429 rather than hold a client past its own
  // timeout); one decided longer fails at once, as past its timeout.
  // nullopt: its timeout and total_timeout alone.
  std::optional<std::chrono::milliseconds> max_wait{};
  // Cancels a retry, pause or pacing wait, or a hop in flight (within about a
  // second; its attempt counted with no answer, `none`): `cancelled`.
  std::stop_token stop{};
  // When set, the final answer's body goes here, decoded, as it arrives, and
  // Response::body stays empty: never a followed redirect's (3xx with a
  // Location) or a retried attempt's; an answer that may be retried is held (64 KiB at
  // most; past that it is streamed and no longer retried). false, or an
  // exception, ends the transfer: TransportErrc::sink_refused. Called on the
  // thread of perform(). With a cache, a GET it takes is held until whole
  // (up to CacheOptions::max_entry_bytes; past that it streams, not kept)
  // and then handed over, so it is kept, revalidated and coalesced as any.
  std::function<bool(const BodyChunk&)> on_body{};
};

// Why an exchange failed. `ok` when it did not.
enum class TransportErrc : std::uint8_t {
  ok,
  invalid_request,         // unusable URL or method; nothing was sent
  resolve_failed,          // name resolution failed
  connect_failed,          // TCP connect failed or was refused
  tls_failed,              // TLS handshake or certificate verification failed (fail closed)
  timeout,                 // a timeout expired
  connection_dropped,      // the connection broke while sending or receiving
  redirect_limit,          // more than max_redirects hops (a loop ends here)
  redirect_refused,        // a redirect to a scheme other than http/https, or without a usable Location
  budget_exhausted,        // 403/429 with remaining 0, or GraphQL's RATE_LIMITED (even a 200): spent, never retried
  secondary_rate_limited,  // 403/429 with Retry-After not retried: retries off or used up, or over the maximum
  lane_refused,            // the request's lane is gated and its gate reads false: nothing was sent
  installation_paused,     // a secondary limit paused the installation past pause.max_wait or the timeout: not sent
  budget_reserved,         // the lane's reserve on the budget is reached (LaneReserve): nothing was sent
  cancelled,               // Request::stop fired during a retry, pause or pacing wait, or a hop in flight
  paced,                   // its pace or a secondary limit held it past its timeout or total_timeout: not sent
  sink_refused,            // Request::on_body returned false or threw: the transfer was ended
  source_failed,           // Request::body_source failed, threw or ended short of body_length: the transfer was ended
  other,                   // any other libcurl failure
};

// "ok", "invalid_request", ... (the enumerator's name).
FORGEMETER_API std::string_view to_string(TransportErrc code) noexcept;

struct FORGEMETER_API TransportError {
  TransportErrc code = TransportErrc::ok;
  std::string message;  // one line, for people; includes libcurl's message when libcurl failed
  explicit operator bool() const noexcept { return code != TransportErrc::ok; }
};

// One request put on the wire.
struct FORGEMETER_API Hop {
  std::string url;
  std::string host;  // host_of(url): what the Meter charged
  Api api = Api::rest;
  int status = kNoAnswer;  // the hop's final status, or kNoAnswer
};

// "no_cache", "bypassed", ... (the enumerator's name).
FORGEMETER_API std::string_view to_string(CacheOutcome outcome) noexcept;

struct FORGEMETER_API Response {
  int status = kNoAnswer;  // the last hop's status, or kNoAnswer
  Headers headers;         // the last answer's header block and fields (names as sent)
  std::string body;        // the last answer's body
  std::vector<Hop> hops;   // in order; empty when nothing was attempted or when coalesced
  TransportError error;
  // The cache (forgemeter/cache.h) answered: `revalidated`, its kept 200
  // after the forge said 304 to the request it made conditional (hops show
  // that 304); `coalesced`, a copy of the answer to an identical request in
  // flight at the time (nothing of this request went on the wire).
  bool revalidated = false;
  bool coalesced = false;
  // How long it was held before its hops were sent: a pause, its pace, a
  // secondary limit, a retry's wait (a proxy's access log says it).
  std::chrono::milliseconds waited{};
  CacheOutcome cache = CacheOutcome::no_cache;  // what the cache did (those two among its outcomes)

  // Whether the exchange succeeded: the one test of failure; `error` says why not.
  bool ok() const noexcept { return !error; }
  // First value of a header of the last answer (any case), or nullopt.
  std::optional<std::string_view> header(std::string_view name) const noexcept;
};

}  // namespace forgemeter
