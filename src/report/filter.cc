#include "report/filter.h"

#include <algorithm>
#include <iterator>
#include <sstream>

#include <date/date.h>

#include "core/duration_text.h"

namespace forgemeter::report {

namespace {

std::optional<Instant> parse_instant(std::string_view text) {
  for (const char* format : {"%FT%TZ", "%FT%RZ", "%F"}) {
    std::istringstream in{std::string(text)};
    Instant t;
    in >> date::parse(format, t);
    if (!in.fail() && in.peek() == std::char_traits<char>::eof()) return t;
  }
  return std::nullopt;
}

template <class T, class V>
bool any_of_or_all(const std::vector<T>& wanted, const V& value) {
  return wanted.empty() || std::find(wanted.begin(), wanted.end(), value) != wanted.end();
}

// Copies the entries `keep` accepts from `from` into `to`; whether any was.
template <class Entry, class Keep>
bool copy_kept(const std::vector<Entry>& from, std::vector<Entry>& to, Keep keep) {
  to.clear();
  std::copy_if(from.begin(), from.end(), std::back_inserter(to), keep);
  return !to.empty();
}

}  // namespace

std::optional<TimeBound> parse_time_bound(std::string_view text) {
  if (text.starts_with('-')) {
    const auto d = core_detail::parse_duration(text.substr(1));
    if (!d) return std::nullopt;
    return TimeBound{std::nullopt, std::chrono::duration_cast<std::chrono::seconds>(*d)};
  }
  if (auto at = parse_instant(text)) return TimeBound{at, {}};
  return std::nullopt;
}

std::vector<FleetHour> within(std::vector<FleetHour> hours, const HourRange& range) {
  if ((!range.since && !range.until) || hours.empty()) return hours;
  const Instant last = hours.back().hour_ending;
  const auto since = range.since ? std::optional(range.since->resolve(last)) : std::nullopt;
  const auto until = range.until ? std::optional(range.until->resolve(last)) : std::nullopt;
  std::erase_if(hours, [&](const FleetHour& h) {
    return (since && h.hour_ending <= *since) || (until && h.hour_start() >= *until);
  });
  return hours;
}

bool EntryFilter::apply(const LineView& in, LineView& out) const {
  out.kind = in.kind;
  out.hour_ending = in.hour_ending;
  out.note = in.note;
  switch (in.kind) {
    case LineView::Kind::count: {
      const bool any = copy_kept(in.counts, out.counts, [&](const CountEntryView& e) {
        return any_of_or_all(lanes, e.lane) && any_of_or_all(installations, e.installation) &&
               any_of_or_all(hosts, e.host);
      });
      out.total = 0;
      for (const auto& e : out.counts) out.total += e.count;  // a part of the line's N: no wrap
      return any;
    }
    case LineView::Kind::budget:
      return copy_kept(in.budgets, out.budgets, [&](const BudgetEntryView& e) {
        return any_of_or_all(installations, e.installation) && any_of_or_all(hosts, e.host);
      });
    case LineView::Kind::answers:
      if (!lanes.empty() || !installations.empty()) return false;
      return copy_kept(in.answers, out.answers,
                       [&](const AnswersEntryView& e) { return any_of_or_all(hosts, e.host); });
  }
  return false;
}

}  // namespace forgemeter::report
