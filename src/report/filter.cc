// GCC 12 warns that date::parse's fraction of a second may be read
// uninitialised: it is read only when the stream did not fail, which the
// inlined code cannot see. The warning points into <chrono>, so it is turned
// off for the whole file, before any include.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "report/filter.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <sstream>

#include <date/date.h>

#include "core/duration_text.h"

namespace forgemeter::report {

namespace {

// date::parse does not check that the instant fits its duration's count:
// the year is checked first, so nanoseconds since 1970 cannot wrap.
bool year_fits(std::string_view text) {
  std::istringstream in{std::string(text)};
  date::year_month_day day{};
  in >> date::parse("%F", day);
  return !in.fail() && day.year() >= date::year{1678} && day.year() <= date::year{2261};
}

std::optional<BoundInstant> parse_instant(std::string_view text) {
  if (!year_fits(text)) return std::nullopt;
  // %T reads the seconds with any fraction (to nanoseconds); %Ez an offset
  // as +02:00 or -05:00, which date::parse subtracts to give UTC.
  for (const char* format : {"%FT%TZ", "%FT%RZ", "%FT%T%Ez", "%FT%R%Ez", "%F"}) {
    std::istringstream in{std::string(text)};
    BoundInstant t;
    std::chrono::minutes offset{0};
    in >> date::parse(format, t, offset);
    if (!in.fail() && in.peek() == std::char_traits<char>::eof() && std::chrono::abs(offset) < std::chrono::hours(24))
      return t;
  }
  return std::nullopt;
}

template <class T, class V>
bool any_of_or_all(const std::vector<T>& wanted, const V& value) {
  return wanted.empty() || std::find(wanted.begin(), wanted.end(), value) != wanted.end();
}

// `from`'s hour and note, and the entries `keep` accepts, into `to`; whether any was.
template <class Line, class Keep>
bool copy_kept(const Line& from, Line& to, Keep keep) {
  to.hour_ending = from.hour_ending;
  to.note = from.note;
  to.entries.clear();
  std::copy_if(from.entries.begin(), from.entries.end(), std::back_inserter(to.entries), keep);
  return !to.entries.empty();
}

}  // namespace

std::optional<TimeBound> parse_time_bound(std::string_view text) {
  if (text.starts_with('-')) {
    // Of any length: counted back past the earliest instant, resolve() stops there.
    const auto ns = core_detail::parse_duration_length(text.substr(1));
    if (!ns) return std::nullopt;
    constexpr long double kLongest = static_cast<long double>(std::chrono::seconds::max().count()) / 2;
    const long double s = std::min(std::floor(std::floor(*ns + 0.5L) / 1e9L), kLongest);
    return TimeBound{std::nullopt, std::chrono::seconds(static_cast<std::chrono::seconds::rep>(s))};
  }
  if (auto at = parse_instant(text)) return TimeBound{at, {}};
  return std::nullopt;
}

BoundInstant TimeBound::resolve(Instant now) const {
  if (at) return *at;
  const BoundInstant earliest = BoundInstant::min();
  const std::chrono::seconds room = now - std::chrono::floor<std::chrono::seconds>(earliest);
  if (before_now >= room) return earliest;
  return BoundInstant(now - before_now);
}

std::vector<FleetHour> within(std::vector<FleetHour> hours, const HourRange& range, Instant now) {
  if ((!range.since && !range.until) || hours.empty()) return hours;
  using std::chrono::seconds;
  // x <= since for a whole second x is x <= floor(since); x >= until, x >= ceil(until).
  const auto since = range.since ? std::optional(std::chrono::floor<seconds>(range.since->resolve(now))) : std::nullopt;
  const auto until = range.until ? std::optional(std::chrono::ceil<seconds>(range.until->resolve(now))) : std::nullopt;
  std::erase_if(hours, [&](const FleetHour& h) {
    return (since && h.hour_ending <= *since) || (until && h.hour_start() >= *until);
  });
  return hours;
}

bool never_overlaps(const HourRange& range) {
  if (!range.since || !range.until) return false;
  const TimeBound &since = *range.since, &until = *range.until;
  if (since.at && until.at) return *since.at >= *until.at;
  if (!since.at && !until.at) return since.before_now <= until.before_now;
  return false;
}

bool EntryFilter::apply(const CountLineView& in, CountLineView& out) const {
  const bool any = copy_kept(in, out, [&](const CountEntryView& e) {
    return any_of_or_all(lanes, e.lane) && any_of_or_all(installations, e.installation) && any_of_or_all(hosts, e.host);
  });
  out.total = 0;
  for (const auto& e : out.entries) out.total += e.count;  // a part of the line's N: no wrap
  return any;
}

bool EntryFilter::apply(const BudgetLineView& in, BudgetLineView& out) const {
  return copy_kept(in, out, [&](const BudgetEntryView& e) {
    return any_of_or_all(installations, e.installation) && any_of_or_all(hosts, e.host);
  });
}

bool EntryFilter::apply(const AnswersLineView& in, AnswersLineView& out) const {
  if (!lanes.empty() || !installations.empty()) return false;
  return copy_kept(in, out, [&](const AnswersEntryView& e) { return any_of_or_all(hosts, e.host); });
}

bool EntryFilter::apply(const LanesLineView& in, LanesLineView& out) const {
  return copy_kept(in, out, [&](const LanesEntryView& e) {
    return any_of_or_all(lanes, e.lane) && any_of_or_all(installations, e.installation) && any_of_or_all(hosts, e.host);
  });
}

}  // namespace forgemeter::report
