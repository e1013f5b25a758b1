// projection.h — when will a budget run out, and did one run out in a burst
// right after its reset.
//
// The model (docs/report.md, "When will it run out?"): a meter line
// keeps, per replica and hour, the lowest remaining it saw of each budget,
// with the limit and the reset the forge sent with that reading. A core
// budget is GitHub's hourly window: it refills to its limit at the reset, so
// the window began an hour before it, and until the reset remaining only
// falls — the hour's lowest reading is the latest word on that window. What
// the window spent by then, limit − remaining over the time since the window
// began, is "the rate seen so far" (every client of the installation counts:
// the forge's own count, not only the metered fleet's requests). At that
// rate the remaining budget lasts remaining / rate; if that ends before the
// reset, that instant is when it runs out.
//
// Thread-safety: pure functions. Errors: none; what cannot be projected says why.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/fleet.h"

namespace forgemeter::report {

struct Projection {
  BudgetKey key;
  // The reading projected from: the hour's lowest.
  std::optional<std::uint64_t> remaining;
  Instant at{};
  std::optional<std::uint64_t> limit;  // as read (or --budget)
  std::optional<Instant> resets;
  // The rate: `spent` of the limit in `elapsed` since the window began (resets − 1 h).
  std::uint64_t spent = 0;
  std::chrono::seconds elapsed{0};
  bool out = false;                            // the reading was 0: ran out at `at`
  std::optional<Instant> runs_out_at;          // at this rate, before the reset
  std::optional<std::uint64_t> left_at_reset;  // or lasting to the reset with this many left
  std::string no_projection;                   // why there is none ("" when there is one)

  double per_minute() const;  // spent per minute (0 without a rate)
};

// The last hour of `hours` when `now` lies inside it (the hour is still being
// counted), else nullptr.
const FleetHour* hour_in_progress(const std::vector<FleetHour>& hours, std::optional<Instant> now);

// Every core budget of `h` (one per host and installation), projected from
// its lowest reading as seen at `now`.
std::vector<Projection> project(const FleetHour& h, Instant now);

// An hourly budget (core, graphql) of the hour that ran out within `within`
// of its window's start (a startup burst: the fleet spent it all at once).
struct Burst {
  BudgetKey key;
  Instant window_start{};  // its reset − 1 h: when the budget refilled
  Instant out_at{};        // the first reading of 0
};
std::vector<Burst> startup_bursts(const FleetHour& h, std::chrono::seconds within);

}  // namespace forgemeter::report
