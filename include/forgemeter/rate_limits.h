// forgemeter/rate_limits.h — how a Transport keeps to a forge's rate limits:
// the one struct of settings (TransportOptions::rate_limits) and the load it
// reports (Transport::figures()).
//
//   forgemeter::Transport transport({.meter = &meter, .rate_limits = {
//       .retry = {.enabled = true},
//       .reserves = {{.lane = sweeper, .installation = 101, .keep = 5}}}});
//
// Five parts, each off or GitHub's documented value by default: retries of
// an answer worth trying again; the pause of an installation after a
// secondary rate limit; lanes' reserves on a budget (refused before
// sending); paced lanes (delayed so the fleet ends at its keep when the
// budget resets); the secondary limits' triggers, kept under. A reserve and
// a paced lane say what to leave untouched the same way: `keep` (absolute)
// or `keep_fraction` (a part of the reading's limit), the larger applies.
// Why and how: docs/rate-limits.md.
//
// Plain values. Errors: the Transport's constructor throws
// std::invalid_argument naming the field (e.g.
// "rate_limits.reserves[0].keep_fraction must be in [0, 1]").
#pragma once

#include "forgemeter/export.h"

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "forgemeter/clock.h"
#include "forgemeter/lane.h"
#include "forgemeter/lines.h"

namespace forgemeter {

// Retries. Off unless enabled. Each retry is a new request on the wire and
// counted as one. Waiting uses TransportOptions::clock (wait_until).
struct FORGEMETER_API RetryOptions {
  bool enabled = false;
  int max_retries = 3;  // per hop
  // Idempotent methods only (GET, HEAD, PUT, DELETE, OPTIONS): a connection
  // failure (connect refused, connection dropped) or 502/503/504 is retried
  // after a jittered exponential backoff: uniform in [d/2, d] with
  // d = min(max_backoff, base_backoff * 2^retry).
  std::chrono::milliseconds base_backoff{100};
  std::chrono::milliseconds max_backoff{5000};
  // Any method: a secondary rate limit is retried after its wait (Retry-After,
  // or PauseOptions::wait when absent) when that is at most this.
  std::chrono::seconds max_retry_after{60};
};

// After an answer classed `secondary` to a request charged to an
// installation, every later request of that installation (any thread, any
// lane) waits, before it is sent and without being counted, until the
// Retry-After instant, or `wait` after the answer when it has none. A
// request whose wait would pass `max_wait`, or its own timeout, fails at
// once with TransportErrc::installation_paused saying until when.
struct FORGEMETER_API PauseOptions {
  std::chrono::seconds wait{60};
  std::chrono::seconds max_wait{60};
};

// A lane's reserve on an installation's budget: while this Transport's latest
// reading of that budget says remaining <= what it keeps, and its reset has
// not passed, the lane's requests that would spend it are refused before
// sending (TransportErrc::budget_reserved; counted by Meter::record_refused).
struct FORGEMETER_API LaneReserve {
  Lane lane = Lane::other();
  std::uint64_t installation = 0;  // 0: every installation
  // The bucket it keeps (X-RateLimit-Resource's name). A request is taken to
  // spend resource_of_path() of its URL (forgemeter/url.h).
  std::string resource = "core";
  std::uint64_t keep = 0;    // what the lane leaves untouched, absolute …
  double keep_fraction = 0;  // … or this part of the reading's limit, in [0, 1]; the larger applies
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

// Paced lanes; none: nothing paced. A paced or held request waits up to its
// own timeout and total_timeout, then fails with TransportErrc::paced;
// Request::stop ends the wait (`cancelled`).
struct FORGEMETER_API PacingOptions {
  std::vector<PacedLane> lanes{};
  PacingTuning tuning{};
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

// TransportOptions::rate_limits.
struct FORGEMETER_API RateLimitOptions {
  RetryOptions retry{};
  PauseOptions pause{};
  std::vector<LaneReserve> reserves{};
  PacingOptions pacing{};
  SecondaryLimitOptions secondary_limits{};
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

}  // namespace forgemeter
