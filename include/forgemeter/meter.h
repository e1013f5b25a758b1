// forgemeter/meter.h — the hourly tally of forge requests.
//
// A Meter is told about every request put on the wire (record_request) and
// every answer read back (record_answer). It keeps one UTC hour at a time and
// writes that hour as up to four greppable lines (see forgemeter/lines.h for
// the grammar) when the first event of a later hour arrives, and at flush();
// the fourth, `forge HTTP lanes:`, only for an hour in which a cache spared a
// lane a request or a lane waited (record_wait).
//
//   forge HTTP: 3 requests in the hour ending 2026-09-30T15:00Z — api.github.com rest installation 101 sweeper=2, api.github.com graphql other=1
//   forge rate limit: lowest remaining in the hour ending 2026-09-30T15:00Z — api.github.com rest installation 101: 4870 of 5000 at 14:59:58Z (resets 15:12:00Z)
//   forge HTTP answers: in the hour ending 2026-09-30T15:00Z — api.github.com rest 2xx=2, api.github.com graphql 2xx=1
//
// Nothing is timer-driven (an hour with no traffic writes nothing) and nothing
// is ever dropped: a record stamped before the hour being counted counts in
// it, and what is past the bounds on hosts and memory folds into `(other hosts)`.
//
// Thread-safety: every method may be called from any number of threads at
// once (the destructor excepted); lines reach the sink one at a time, outside
// the locks request threads take (LineSink). Ownership: the Meter owns its
// tally; MeterOptions::clock is borrowed. Errors: record_* never throw and
// never block on the sink (out of memory terminates, as in any noexcept call);
// a sink that throws is caught (the line is lost, no count is). The
// constructor throws std::invalid_argument for unusable options.
#pragma once

#include "forgemeter/export.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "forgemeter/clock.h"
#include "forgemeter/lane.h"
#include "forgemeter/lines.h"  // AnswerClass, WaitCause
#include "forgemeter/meter_metrics.h"
#include "forgemeter/url.h"

namespace forgemeter {

// What a request is counted under.
struct FORGEMETER_API RequestKey {
  // Host as host_of() gives it (lower-cased, `:port` kept). The meter
  // lower-cases again and escapes any byte that could break a line.
  std::string_view host{};
  Api api = Api::rest;
  std::uint64_t installation = 0;  // GitHub App installation id; 0 = none
  Lane lane = Lane::other();
};

// The rate-limit headers of one answer, raw; empty = absent. The meter applies
// the reading rules (docs/rate-limits.md), so hostile values are harmless.
struct FORGEMETER_API RateLimitHeaders {
  std::string_view limit{};        // X-RateLimit-Limit
  std::string_view remaining{};    // X-RateLimit-Remaining
  std::string_view reset{};        // X-RateLimit-Reset
  std::string_view retry_after{};  // Retry-After
  std::string_view resource{};     // X-RateLimit-Resource: GitHub's bucket (core, search, graphql, …)
  // GitLab's unprefixed RateLimit-Limit/Remaining/Reset, read only when
  // X-RateLimit-Remaining is absent (the X- headers win).
  std::string_view plain_limit{}, plain_remaining{}, plain_reset{};
  // GitLab's RateLimit-Name (the resource, when X-RateLimit-Resource is
  // absent) and RateLimit-ResetTime (an HTTP date, read when RateLimit-Reset is).
  std::string_view plain_name{}, plain_reset_time{};

  // Keeps `value` when `name` (any case) is one of the headers above; of a
  // remaining header given twice, the lower number, else the last value.
  // The views must stay valid until the record is passed to the Meter.
  void offer(std::string_view name, std::string_view value) noexcept;
  // A temporary std::string's view would dangle: refused at compile time.
  template <typename S>
  requires std::is_same_v<S, std::string>
  void offer(std::string_view name, S&& value) = delete;
};

inline constexpr int kNoAnswer = 0;             // AnswerRecord::status of an attempt with no answer
inline constexpr Duration kUnknownElapsed{-1};  // AnswerRecord::elapsed when not measured

struct FORGEMETER_API AnswerRecord {
  RequestKey key{};
  UtcMillis seen{};
  int status = kNoAnswer;  // HTTP status (final of this hop), or kNoAnswer
  RateLimitHeaders headers{};
  // The answer's body (or its start) when the caller has it: read only to
  // tell a 403 whose body says "secondary rate limit" from a plain 403, and
  // a GraphQL answer whose errors say RATE_LIMITED (a spent budget).
  std::string_view body{};
  // How long the hop took, from the request going on the wire to its
  // answer's status line and headers read, on a steady clock (a Transport
  // and CurlMeter measure it on the Meter's Clock::steady_now()). Negative
  // (the default, kUnknownElapsed) = not measured: the answer is counted, its
  // duration is not. Only answers (status != kNoAnswer) have one; see
  // forgemeter_request_duration_seconds in docs/metrics.md.
  Duration elapsed = kUnknownElapsed;
};

// Receives one finished line at a time, without a trailing newline. A finished
// hour is written late, at the next event, under its own date. Lines reach the
// sink in order, one call at a time, from whichever thread turned the hour or
// flushed, outside the locks request threads take: a slow sink delays only the
// next turn, never a record of the current hour. The sink must not call back
// into its own Meter.
using LineSink = std::function<void(std::string_view line)>;

// Writes each line to stderr followed by '\n' (one write call per line).
FORGEMETER_API LineSink stderr_sink();

struct FORGEMETER_API MeterOptions {
  const Clock* clock = nullptr;  // nullptr: system_clock(). Used by flush() and the convenience overloads.
  LineSink sink{};               // empty: stderr_sink()
  // Distinct hosts one hour names (>= 1); later new hosts fold into
  // `(other hosts)`. Memory per hour is bounded too: past a few thousand
  // distinct keys (only a forge redirecting to host after host gets there)
  // new ones are folded at once.
  std::size_t max_hosts = 64;
  // Distinct installations (other than 0, none) the cumulative counters of
  // prometheus() and metrics() name (>= 1); later new ones are counted under
  // installation="other", so a GitHub App on 10 000 installations exports
  // about 5 series per installation and resource up to this bound, not past
  // it (docs/metrics.md). The hourly lines are not affected.
  std::size_t max_installations = 1000;
  // Whether answers' elapsed times are kept, as the histogram
  // forgemeter_request_duration_seconds of prometheus() and metrics(); off,
  // that family is not exported and record_answer skips the bucket.
  bool request_durations = true;
};

class FORGEMETER_API Meter {
 public:
  // The first hour's lines say `counted from` the construction instant unless
  // that is on the hour.
  explicit Meter(MeterOptions options = {});
  ~Meter();  // flush()
  Meter(const Meter&) = delete;
  Meter& operator=(const Meter&) = delete;

  // One request put on the wire at `sent`.
  void record_request(const RequestKey& key, UtcMillis sent) noexcept;
  void record_request(const RequestKey& key) noexcept { record_request(key, clock().now()); }

  // One answer (or the lack of one) to a request recorded earlier, counted in
  // the hour of `answer.seen` (it may turn the hour) on the answers line. When
  // key.installation is non-zero and a remaining budget reads, it is also a
  // reading of the resource the answer names. An answer with its elapsed
  // time (>= 0) adds it to the request-duration histogram of its host, API
  // and class (unless MeterOptions::request_durations is off). The views are
  // read before this returns.
  void record_answer(const AnswerRecord& answer) noexcept;

  // A request refused before sending (an elected lane without a valid term):
  // counted on the answers line as `refused`, not in N; may turn the hour.
  void record_refused(const RequestKey& key, UtcMillis at) noexcept;
  // What a Transport's cache saved (docs/cache.md), on the answers line and
  // not in N: a request that took the answer of an identical one in flight
  // (`coalesced`), and a 304 turned into the kept answer (`revalidated`; the
  // 304 itself was recorded as an answer).
  void record_coalesced(const RequestKey& key, UtcMillis at) noexcept;
  void record_revalidated(const RequestKey& key, UtcMillis at) noexcept;
  // Both are also charged to the key's lane on the lanes line.

  // A request of `key` that waited `waited` before going on the wire (or
  // before giving up), for `cause`, ending at `at`: summed per lane and cause
  // on the lanes line of the hour of `at` (in ms, stopping at the maximum,
  // never wrapping). Not a request: N is unchanged. A wait of 0 or less is
  // not recorded.
  void record_wait(const RequestKey& key, WaitCause cause, std::chrono::milliseconds waited, UtcMillis at) noexcept;

  // Writes what the current hour holds; the note says `until …, stopping` when
  // now() is inside that hour, and counting resumed after it says `counted
  // from` the flush. A second flush with nothing new writes nothing.
  void flush() noexcept;

  // Cumulative counters since construction, in the Prometheus text exposition
  // format (version 0.0.4): the families docs/metrics.md lists for a Meter —
  // forgemeter_requests_total, forgemeter_answers_total (with lane),
  // forgemeter_cache_saved_total, forgemeter_wait_seconds_total,
  // forgemeter_request_duration_seconds (a histogram) and the
  // forgemeter_rate_limit_* gauges (remaining, lowest_remaining, limit,
  // reset_timestamp_seconds, exhaustion_timestamp_seconds while the budget is
  // projected to run out before its reset). installation="0" means none;
  // past MeterOptions::max_installations, "other". Includes the hour being
  // counted. A host, API and lane with any answer has its `limited` and
  // `secondary` answers from 0 (docs/metrics.md says why).
  std::string prometheus() const;

  // The families prometheus() writes, as data (forgemeter/meter_metrics.h),
  // the same numbers: what forgemeter::MeterCollectable hands prometheus-cpp.
  MeterMetrics metrics() const;

  const Clock& clock() const noexcept;

 private:
  void record_unsent(const RequestKey& key, UtcMillis at, AnswerClass c) noexcept;
  void record_saved(const RequestKey& key, UtcMillis at, AnswerClass c) noexcept;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace forgemeter
