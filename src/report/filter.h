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

// A bound of --since/--until: an instant, or a duration before the report's
// now (--now, or the clock): `--since -1h` is the hour before now, whatever
// the input's last line, so a replica that stopped logging drops out.
struct TimeBound {
  std::optional<BoundInstant> at;
  std::chrono::seconds before_now{0};
  // The instant; `now - before_now` stops at BoundInstant's earliest instant
  // (1677) instead of wrapping.
  BoundInstant resolve(Instant now) const;
};

// The years a meter line's hour may be in, for the report: every instant of
// such an hour (and any bound) fits BoundInstant's 64-bit nanoseconds. A line
// dated outside them is a malformed line.
inline constexpr int kFirstYear = 1970, kLastYear = 2261;
inline bool hour_in_years(Instant hour_ending) {
  using namespace std::chrono;
  return hour_ending >= sys_days{year{kFirstYear} / January / 1} &&
         hour_ending < sys_days{year{kLastYear + 1} / January / 1};
}

// An ISO 8601 instant as logs write it: `2026-09-30T15:00Z`,
// `2026-09-30T15:00:00Z`, seconds with a fraction (`15:00:00.000Z`, up to
// nanoseconds), a UTC offset instead of Z (`2026-09-30T17:00+02:00`,
// `…T10:00:00-05:00`); a date, `2026-09-30` (its 00:00Z); or `-` and a
// duration as the tool writes them (`-6h`, `-90m`, `-1h30m`), before now, of
// any length (`-4000000h`: one past the earliest instant stops there).
// Instants in years 1678 to 2261 (what 64-bit nanoseconds since 1970 hold);
// nullopt for anything else.
std::optional<TimeBound> parse_time_bound(std::string_view text);

// The hours that overlap [since, until): an hour [start, ending) is kept when
// ending > since and start < until. So SINCE is inclusive and UNTIL exclusive,
// and an hour that holds either bound is kept whole. Relative bounds count
// back from `now`. Compared in seconds: no hour, whatever its year, is
// converted to nanoseconds.
struct HourRange {
  std::optional<TimeBound> since, until;
};
std::vector<FleetHour> within(std::vector<FleetHour> hours, const HourRange& range, Instant now);
// True when [since, until) holds no instant whatever the input: both bounds
// are instants, or both are relative to the same end, and since is not
// before until. (One of each is only known once now is.)
bool never_overlaps(const HourRange& range);

// Keeps the entries of the chosen lanes, installations and hosts (any of the
// values given for one; every kind given must match). A budget entry names
// no lane: a lane filter keeps every budget (the installation's, which every
// lane spends). An answers entry names no lane and no installation: with
// either filter the answers lines are left out, as they cannot be split. A
// lanes entry names all three.
struct EntryFilter {
  std::vector<std::string> lanes, hosts;  // hosts as the lines write them (lower case)
  std::vector<std::uint64_t> installations;

  bool empty() const { return lanes.empty() && hosts.empty() && installations.empty(); }
  // The kept entries of `in` into `out` (its vector reused); false when none is kept.
  bool apply(const CountLineView& in, CountLineView& out) const;
  bool apply(const BudgetLineView& in, BudgetLineView& out) const;
  bool apply(const AnswersLineView& in, AnswersLineView& out) const;
  bool apply(const LanesLineView& in, LanesLineView& out) const;
};

}  // namespace forgemeter::report
