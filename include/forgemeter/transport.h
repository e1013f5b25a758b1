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
// reserve refuses is Meter::record_refused. Redirects are followed, the
// credential kept to its origin; TLS is always verified. How, on libcurl:
// docs/transport-internals.md. Retries, pauses, secondary limits, reserves,
// pacing: docs/rate-limits.md. The cache (revalidation, coalescing): docs/cache.md.
//
// Thread-safety: perform(), figures() (the requests on the wire and waiting,
// now) and the gate methods may be called from any number of threads at once;
// figures() never waits on the wire. Ownership: the Transport owns its libcurl
// handles; the Meter and Clock in TransportOptions are borrowed and must
// outlive it. Errors: perform() never throws (but std::bad_alloc); the
// constructor throws std::invalid_argument for unusable options (no meter, a
// malformed resolve entry, max_redirects < 0, a timeout outside 0-100000h,
// cache.poll <= 0, a pacing or secondary-limit value out of range,
// max_installations 0, a user_agent with a control byte) and
// std::runtime_error if libcurl (or, with a cache, its random key) cannot
// start. A request timeout past 100000h (or a negative
// per-hop one) is TransportErrc::invalid_request.
#pragma once

#include "forgemeter/export.h"

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "forgemeter/clock.h"
#include "forgemeter/headers.h"
#include "forgemeter/lane.h"
#include "forgemeter/meter.h"
#include "forgemeter/url.h"

namespace forgemeter {

using Header = std::pair<std::string, std::string>;  // name, value

// A piece of the final answer's body, for Request::on_body: that answer's
// status and header block (the same for each piece), and the bytes.
struct FORGEMETER_API BodyChunk {
  int status = kNoAnswer;
  const Headers* headers = nullptr;
  std::string_view bytes;
};

// One request. Redirects are followed up to TransportOptions::max_redirects
// hops, only to http and https; POST becomes GET (body dropped) on 301/302/303
// and stays POST on 307/308. The credential rule: `bearer` and any
// Authorization, Cookie, Proxy-Authorization, PRIVATE-TOKEN or JOB-TOKEN
// header (GitLab's tokens), any case, go only to the scheme,
// host and port of `url`; a hop elsewhere is sent without them.
struct FORGEMETER_API Request {
  std::string method = "GET";
  std::string url{};
  std::vector<Header> headers{};   // sent as given (but the credential rule)
  std::string body{};              // sent when non-empty, or always for POST/PUT/PATCH
  std::optional<Lane> lane{};      // nullopt: current_lane() of the calling thread
  std::uint64_t installation = 0;  // GitHub App installation the request spends; 0 = none
  std::string bearer{};            // sent as `Authorization: Bearer <bearer>` to the request's own origin only
  std::optional<std::chrono::milliseconds> connect_timeout{};  // nullopt: TransportOptions'
  std::optional<std::chrono::milliseconds> timeout{};          // whole exchange of one hop
  // The whole request (every hop, retry and wait), as curl's -m, measured on
  // TransportOptions::clock; nullopt or <= 0: none. Running out is
  // TransportErrc::timeout; a retry that would wait past it is not made (the
  // answer or failure at hand stands; a secondary limit's is
  // secondary_rate_limited), a pause past it is installation_paused, a
  // pacing or secondary-limit wait past it (or its own timeout) `paced`.
  std::optional<std::chrono::milliseconds> total_timeout{};
  // Cancels a retry, pause or pacing wait, or a hop in flight (within about a
  // second; its attempt counted with no answer, `none`): `cancelled`.
  std::stop_token stop{};
  // When set, the final answer's body goes here, decoded, as it arrives, and
  // Response::body stays empty: never a redirect's (3xx with a Location) or a
  // retried attempt's; an answer that may be retried is held (64 KiB at
  // most; past that it is streamed and no longer retried). false, or an
  // exception, ends the transfer: TransportErrc::sink_refused. Called on the
  // thread of perform(). Not coalesced with identical requests.
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
  installation_paused,     // a secondary limit paused the installation past max_pause_wait or the timeout: not sent
  budget_reserved,         // the lane's reserve on the budget is reached (LaneReserve): nothing was sent
  cancelled,               // Request::stop fired during a retry, pause or pacing wait, or a hop in flight
  paced,                   // its pace or a secondary limit held it past its timeout or total_timeout: not sent
  sink_refused,            // Request::on_body returned false or threw: the transfer was ended
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

struct FORGEMETER_API Response {
  int status = kNoAnswer;  // the last hop's status, or kNoAnswer
  Headers headers;         // the last answer's header block and fields (names as sent)
  std::string body;        // the last answer's body
  std::vector<Hop> hops;   // in order; empty when nothing was attempted or when coalesced
  TransportError error;
  // The cache (TransportOptions::cache) answered: `revalidated`, its kept
  // 200 after the forge said 304 to the request it made conditional (hops
  // show that 304); `coalesced`, a copy of the answer to an identical request
  // in flight at the time (nothing of this request went on the wire).
  bool revalidated = false;
  bool coalesced = false;

  // Whether the exchange succeeded: the one test of failure; `error` says why not.
  bool ok() const noexcept { return !error; }
  // First value of a header of the last answer (any case), or nullopt.
  std::optional<std::string_view> header(std::string_view name) const noexcept;
};

// Retries. Off unless enabled. Each retry is a new request on the wire and
// counted as one. Waiting uses TransportOptions::clock (wait_until).
struct FORGEMETER_API RetryPolicy {
  bool enabled = false;
  int max_retries = 3;  // per hop
  // Idempotent methods only (GET, HEAD, PUT, DELETE, OPTIONS): a connection
  // failure (connect refused, connection dropped) or 502/503/504 is retried
  // after a jittered exponential backoff: uniform in [d/2, d] with
  // d = min(max_backoff, base_backoff * 2^retry).
  std::chrono::milliseconds base_backoff{100};
  std::chrono::milliseconds max_backoff{5000};
  // Any method: a secondary rate limit is retried after its wait (Retry-After,
  // or TransportOptions::secondary_wait when absent) when that is at most this.
  std::chrono::seconds max_retry_after{60};
};

// A lane's reserve on an installation's budget: while this Transport's latest
// reading of that budget says remaining <= the reserve, and its reset has not
// passed, the lane's requests that would spend it are refused before sending
// (TransportErrc::budget_reserved; counted by Meter::record_refused). Say a
// background sweeper must leave 5 of installation 101's hourly budget to the
// requests users wait on (examples/lane_reserve.cc):
//   forgemeter::Transport transport({.meter = &meter, .reserves = {{.lane = sweeper, .installation = 101, .remaining = 5}}});
struct FORGEMETER_API LaneReserve {
  Lane lane = Lane::other();
  std::uint64_t installation = 0;  // 0: every installation
  // The bucket it keeps (X-RateLimit-Resource's name). A request is taken to
  // spend resource_of_path() of its URL (forgemeter/url.h).
  std::string resource = "core";
  std::uint64_t remaining = 0;  // the reserve, absolute …
  double fraction = 0;          // … or this part of the reading's limit, in [0, 1]; the larger applies
};

// A paced lane (docs/rate-limits.md#pacing): its requests charged to
// `installation` and expected to spend `resource` wait before they are sent
// (not counted while waiting) so that the whole fleet — every replica, none
// knowing the others — ends at the keep when the budget resets. Lanes not
// paced are never delayed by pacing; their spend is seen in the readings.
struct FORGEMETER_API PacedLane {
  Lane lane = Lane::other();
  std::uint64_t installation = 0;  // 0: every installation
  std::string resource = "core";   // the bucket; a request spends resource_of_path() of its URL
  std::uint64_t keep = 0;          // what the fleet should have left at the reset, absolute …
  double keep_fraction = 0;        // … or this part of the limit, in [0, 1]; the larger applies
};

// The governor's model's constants (docs/rate-limits.md#the-model).
struct FORGEMETER_API PacingTuning {
  unsigned steps_per_window = 64;                     // a lane re-measures its share this often a window
  double growth = 1.0 / 512;                          // share a lane gains each step, spent or not
  Duration probe_interval = std::chrono::seconds(1);  // with no usable reading: one request per interval
  double burst = 1;                                   // requests a lane may save up (>= 1)
  Duration max_retry = std::chrono::seconds(60);      // a waiter asks again at least this often
};

// GitHub's documented secondary-limit triggers, kept under per installation
// through one Transport (docs/rate-limits.md#secondary-limits-avoided): a
// request that would break one waits, as a paced one does. Each defaults to
// GitHub's value; 0 turns one off, off() all of them.
struct FORGEMETER_API SecondaryLimitOptions {
  unsigned max_in_flight = 100;  // REST and GraphQL together
  unsigned rest_points_per_minute = 900;
  unsigned graphql_points_per_minute = 2000;
  unsigned read_points = 1;         // a REST GET, HEAD or OPTIONS; a GraphQL query
  unsigned write_points = 5;        // any other REST method; a GraphQL mutation
  unsigned writes_per_minute = 80;  // content-creating: REST POST, PATCH, PUT; GraphQL mutations
  unsigned writes_per_hour = 500;
  Duration write_spacing{};                                   // between content-creating requests (GitHub advises 1 s)
  Duration in_flight_recheck = std::chrono::milliseconds(5);  // a request held by max_in_flight asks again after
  Duration minute = std::chrono::minutes(1);                  // the span "a minute" counts over (shorter in tests)
  Duration hour = std::chrono::hours(1);                      // the span "an hour" counts over

  static SecondaryLimitOptions off() noexcept {
    return {.max_in_flight = 0,
            .rest_points_per_minute = 0,
            .graphql_points_per_minute = 0,
            .writes_per_minute = 0,
            .writes_per_hour = 0};
  }
  bool any() const noexcept {
    return max_in_flight != 0 || rest_points_per_minute != 0 || graphql_points_per_minute != 0 ||
           writes_per_minute != 0 || writes_per_hour != 0 || write_spacing > Duration::zero();
  }
};

// The conditional cache (docs/cache.md): off while max_bytes is 0. A GET's
// 200 with an ETag or Last-Modified is kept; the same GET (method, URL,
// installation, credential, the headers its Vary names) is then sent with
// If-None-Match / If-Modified-Since and a 304 returns the kept answer.
// Nothing is served without asking the forge. A request that carries its own
// conditional, Range or Cache-Control header, or is not a GET without a body,
// or is GraphQL, bypasses it. Identical such GETs in flight at once put one
// request on the wire.
struct FORGEMETER_API CacheOptions {
  std::size_t max_bytes = 0;               // every entry's body, headers and key; 0: no cache
  std::size_t max_entries = 10'000;        // least recently used go first
  std::size_t max_entry_bytes = 1u << 20;  // an answer larger than this is not kept
  std::chrono::milliseconds poll{10};      // a waiting follower reads its clock this often
};

// What a Transport's cache holds now (all zero without one).
struct FORGEMETER_API CacheStats {
  std::size_t entries = 0;
  std::size_t bytes = 0;      // as CacheOptions::max_bytes counts them
  std::size_t following = 0;  // requests waiting now for an identical one in flight
};

// One installation's requests at the moment of Transport::figures().
struct FORGEMETER_API InstallationLoad {
  std::uint64_t installation = 0;  // what the requests are charged to; 0 = none
  bool other = false;              // the installations past TransportOptions::max_installations, folded
  std::uint64_t in_flight = 0;     // hops on the wire (admitted, exchange not over)
  std::array<std::uint64_t, kWaitCauses> waiting{};  // by WaitCause: held by a pause, pacing, a secondary limit
};

// A paced budget whose answers give no usable reading (a forge that sends no
// rate-limit headers, as Gitea): its requests go unpaced until one does.
struct FORGEMETER_API UnpacedBudget {
  std::uint64_t installation = 0;
  std::string resource;  // what the paced requests expected to spend ("core", …)
};

// Transport::figures(): every installation seen so far (an idle one stays, at
// 0), installation 0 first if seen, ascending, the folded `other` last; and
// the paced budgets that cannot be paced now (docs/rate-limits.md#pacing).
struct FORGEMETER_API TransportFigures {
  std::vector<InstallationLoad> installations;
  std::vector<UnpacedBudget> unpaced;
};

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
  RetryPolicy retry{};
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds timeout{60'000};  // per hop; 0 = none
  // Ask for a compressed answer (Accept-Encoding: each encoding libcurl can
  // decode) and hand over Response::body decoded, as curl's --compressed.
  bool decompress = false;
  // After an answer classed `secondary` to a request charged to an
  // installation, every later request of that installation (any thread, any
  // lane) waits, before it is sent and without being counted, until the
  // Retry-After instant, or `secondary_wait` after the answer when it has
  // none. A request whose wait would pass max_pause_wait, or its own timeout,
  // fails at once with TransportErrc::installation_paused saying until when.
  std::chrono::seconds secondary_wait{60};
  std::chrono::seconds max_pause_wait{60};
  std::vector<LaneReserve> reserves{};
  std::string user_agent = "forgemeter";
  // When non-empty, every request carries its lane in this header (for a
  // server that counts by lane, e.g. the loopback forge's X-Forgemeter-Lane).
  std::string lane_header{};
  CacheOptions cache{};
  // Paced lanes (PacedLane); empty: nothing paced. A paced or held request
  // waits up to its own timeout and total_timeout, then fails with
  // TransportErrc::paced; Request::stop ends the wait (`cancelled`).
  std::vector<PacedLane> pacing{};
  PacingTuning pacing_tuning{};
  SecondaryLimitOptions secondary_limits{};
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
  CacheStats cache_stats() const;
  // Requests in flight and waiting now, per installation (plain data; a few
  // locks held briefly, never across a wait or an exchange).
  TransportFigures figures() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace forgemeter
