// filter.h — the part of a fleet's lines a report covers: a range of hours,
// and the lanes, installations and hosts asked for.
//
// The range is applied to the summed hours (an hour is whole: the lines are
// hourly); the entry filter to each meter line as it is read, before it is
// summed, so every sum, budget and replica of the report is of the kept
// entries only. With no filter the scan does not look at it (one null test
// per line).
//
// Thread-safety: values; EntryFilter::apply() is const and may be called from
// several threads. Errors: parse functions return nullopt.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "forgemeter/line_view.h"
#include "report/fleet.h"

namespace forgemeter::report {

// An instant a bound names, to the nanosecond a log writes: `--until
// 15:00:00.5Z` must keep the hour that starts at 15:00:00Z.
using BoundInstant = std::chrono::sys_time<std::chrono::nanoseconds>;

// A bound of --since/--until: an instant, or a duration before the end of the
// last hour the input holds.
struct TimeBound {
  std::optional<BoundInstant> at;
  std::chrono::seconds before_last{0};
  BoundInstant resolve(Instant last_hour_ending) const { return at ? *at : last_hour_ending - before_last; }
};

// An ISO 8601 instant as logs write it: `2026-09-30T15:00Z`,
// `2026-09-30T15:00:00Z`, seconds with a fraction (`15:00:00.000Z`, up to
// nanoseconds), a UTC offset instead of Z (`2026-09-30T17:00+02:00`,
// `…T10:00:00-05:00`); a date, `2026-09-30` (its 00:00Z); or `-` and a
// duration as the tool writes them (`-6h`, `-90m`, `-1h30m`). Years 1678 to
// 2261 (what 64-bit nanoseconds since 1970 hold); nullopt for anything else.
std::optional<TimeBound> parse_time_bound(std::string_view text);

// The hours that overlap [since, until): an hour [start, ending) is kept when
// ending > since and start < until. So SINCE is inclusive and UNTIL exclusive,
// and an hour that holds either bound is kept whole.
struct HourRange {
  std::optional<TimeBound> since, until;
};
std::vector<FleetHour> within(std::vector<FleetHour> hours, const HourRange& range);
// True when [since, until) holds no instant whatever the input: both bounds
// are instants, or both are relative to the same end, and since is not
// before until. (One of each is only known once the input is read.)
bool never_overlaps(const HourRange& range);

// Keeps the entries of the chosen lanes, installations and hosts (any of the
// values given for one; every kind given must match). A budget entry names
// no lane: a lane filter keeps every budget (the installation's, which every
// lane spends). An answers entry names no lane and no installation: with
// either filter the answers lines are left out, as they cannot be split.
struct EntryFilter {
  std::vector<std::string> lanes, hosts;  // hosts as the lines write them (lower case)
  std::vector<std::uint64_t> installations;

  bool empty() const { return lanes.empty() && hosts.empty() && installations.empty(); }
  // The kept entries of `in` into `out` (its vector reused); false when none is kept.
  bool apply(const CountLineView& in, CountLineView& out) const;
  bool apply(const BudgetLineView& in, BudgetLineView& out) const;
  bool apply(const AnswersLineView& in, AnswersLineView& out) const;
};

}  // namespace forgemeter::report
