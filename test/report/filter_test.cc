// What a report covers (src/report/filter.h): --since/--until's forms, the
// hours they keep and a range that can keep none; the entries --lane,
// --installation and --host keep.
#include <doctest/doctest.h>

#include "report/filter.h"

using namespace forgemeter;
using namespace forgemeter::report;
using namespace std::chrono;

namespace {

const sys_seconds kDay = sys_days{2026y / 9 / 30};

std::vector<FleetHour> hours_ending(std::vector<int> at) {
  std::vector<FleetHour> out;
  for (int h : at) out.emplace_back().hour_ending = kDay + hours(h);
  return out;
}

std::vector<int> endings(const std::vector<FleetHour>& hours) {
  std::vector<int> out;
  for (const auto& h : hours)
    out.push_back(static_cast<int>(duration_cast<std::chrono::hours>(h.hour_ending - kDay).count()));
  return out;
}

// The hours ending 12:00Z … 17:00Z kept at `now` (default: the end of the last one).
std::vector<int> kept(const char* since, const char* until, sys_seconds now = kDay + 17h) {
  HourRange range;
  if (since != nullptr) range.since = parse_time_bound(since);
  if (until != nullptr) range.until = parse_time_bound(until);
  return endings(within(hours_ending({12, 13, 15, 16, 17}), range, now));
}

}  // namespace

TEST_CASE("time bounds: ISO instants, a date, or a duration before the last hour's end") {
  CHECK(parse_time_bound("2026-09-30T15:00Z")->at == kDay + 15h);
  CHECK(parse_time_bound("2026-09-30T15:00:30Z")->at == kDay + 15h + 30s);
  CHECK(parse_time_bound("2026-09-30")->at == kDay);
  const auto rel = parse_time_bound("-1h30m");
  REQUIRE(rel);
  CHECK(!rel->at);
  CHECK(rel->resolve(kDay + 17h) == kDay + 15h + 30min);
  for (const char* bad : {"", "-", "6h", "-6", "yesterday", "2026-09-30T15:00", "2026-09-30T15:00Z junk", "2026-13-01",
                          "2026-09-30T25:00Z", "+6h", "--6h"}) {
    CAPTURE(bad);
    CHECK(!parse_time_bound(bad));
  }
}

TEST_CASE("time bounds as logs and ISO 8601 write them: a fraction of a second, a UTC offset instead of Z") {
  CHECK(parse_time_bound("2026-09-30T15:00:00.000Z")->at == kDay + 15h);
  CHECK(parse_time_bound("2026-09-30T15:00:00.5Z")->at == kDay + 15h + 500ms);
  CHECK(parse_time_bound("2026-09-30T15:00:00.123456789Z")->at == kDay + 15h + 123456789ns);  // Go's RFC3339Nano
  CHECK(parse_time_bound("2026-09-30T17:00+02:00")->at == kDay + 15h);
  CHECK(parse_time_bound("2026-09-30T17:00:00+02:00")->at == kDay + 15h);
  CHECK(parse_time_bound("2026-09-30T10:00-05:00")->at == kDay + 15h);
  CHECK(parse_time_bound("2026-09-30T10:00:00.25-05:00")->at == kDay + 15h + 250ms);
  CHECK(parse_time_bound("2026-09-30T00:30+01:00")->at == kDay - 30min);  // the day before, in UTC
  CHECK(parse_time_bound("2026-09-30T15:00+00:00")->at == kDay + 15h);
  for (const char* bad :
       {"2026-09-30T15:00:00.5", "2026-09-30T17:00+02:00Z", "2026-09-30T15:00Z+02:00", "2026-09-30T15:00+24:00",
        "2026-09-30T15:00+", "2026-09-30 15:00Z", "3000-01-01T00:00Z", "1600-01-01"}) {
    CAPTURE(bad);
    CHECK(!parse_time_bound(bad));
  }
}

TEST_CASE("within(): an hour is kept when it overlaps [since, until)") {
  CHECK(kept(nullptr, nullptr) == std::vector<int>{12, 13, 15, 16, 17});
  CHECK(kept("2026-09-30T15:00Z", nullptr) == std::vector<int>{16, 17});      // the hour ending at since is not
  CHECK(kept("2026-09-30T14:30Z", nullptr) == std::vector<int>{15, 16, 17});  // the hour holding since is
  CHECK(kept(nullptr, "2026-09-30T15:00Z") == std::vector<int>{12, 13, 15});  // the hour starting at until is not
  CHECK(kept(nullptr, "2026-09-30T14:00:01Z") == std::vector<int>{12, 13, 15});
  CHECK(kept("-2h", nullptr) == std::vector<int>{16, 17});  // the last two hours before now
  CHECK(kept("-5h", "-1h") == std::vector<int>{13, 15, 16});
  CHECK(kept("2026-09-30T17:00Z", nullptr).empty());
  // A fraction past the hour's start: the hour starting at 15:00Z overlaps [.., 15:00:00.5Z).
  CHECK(kept(nullptr, "2026-09-30T15:00:00.5Z") == std::vector<int>{12, 13, 15, 16});
  CHECK(kept("2026-09-30T17:00+02:00", nullptr) == std::vector<int>{16, 17});  // 15:00Z
}

TEST_CASE("relative bounds count back from now, not from the input's last hour") {
  // A replica that stopped logging at 17:00Z: an hour later its last hour is no longer "the last hour".
  CHECK(kept("-1h", nullptr, kDay + 18h).empty());
  CHECK(kept("-2h", nullptr, kDay + 18h) == std::vector<int>{17});
  CHECK(kept("-6h", "-2h", kDay + 18h) == std::vector<int>{13, 15, 16});
  CHECK(kept("-1h", nullptr, kDay + 16h + 30min) == std::vector<int>{16, 17});  // the hour in progress too
}

TEST_CASE("no instant wraps: a century before an early --now stops at the earliest instant; any hour compares") {
  const auto century = parse_time_bound("-876000h");
  REQUIRE(century);
  const sys_seconds early = sys_days{1680y / 1 / 1};
  CHECK(century->resolve(early) == BoundInstant::min());
  CHECK(century->resolve(kDay) == BoundInstant(kDay - 876000h));
  // A duration of any length: counted back past the earliest instant, it stops there.
  for (const char* far : {"-4000000h", "-999999999999999999h", "-999999999999999999h59m59.5s"}) {
    CAPTURE(far);
    const auto bound = parse_time_bound(far);
    REQUIRE(bound);
    CHECK(bound->resolve(kDay) == BoundInstant::min());
  }
  CHECK(parse_time_bound("-1000000h")->before_now == 1000000h);
  CHECK_FALSE(parse_time_bound("-1000000"));  // no unit: still no duration
  // An hour far past what nanoseconds hold is compared in seconds, never converted.
  std::vector<FleetHour> hours = hours_ending({12});
  hours.emplace_back().hour_ending = sys_days{9000y / 1 / 1};
  HourRange since;
  since.since = parse_time_bound("2026-09-30T15:00Z");
  CHECK(within(hours, since, kDay).size() == 1);
  CHECK(within(hours, since, kDay).front().hour_ending == sys_days{9000y / 1 / 1});
  HourRange until;
  until.until = parse_time_bound("2026-09-30T15:00Z");
  CHECK(within(hours, until, kDay).size() == 1);
  CHECK(within(hours, until, kDay).front().hour_ending == kDay + 12h);
}

TEST_CASE("the years a line's hour may be in: 1970 to 2261") {
  CHECK(hour_in_years(kDay));
  CHECK(hour_in_years(sys_days{1970y / 1 / 1}));
  CHECK(hour_in_years(sys_days{2261y / 12 / 31} + 23h));
  CHECK(!hour_in_years(sys_days{2262y / 1 / 1}));
  CHECK(!hour_in_years(sys_days{1969y / 12 / 31} + 23h));
  CHECK(!hour_in_years(sys_days{9999y / 1 / 1}));
}

TEST_CASE("never_overlaps(): since not before until, when both are instants or both relative") {
  auto range = [](const char* since, const char* until) {
    HourRange r;
    if (since != nullptr) r.since = parse_time_bound(since);
    if (until != nullptr) r.until = parse_time_bound(until);
    return never_overlaps(r);
  };
  CHECK(range("2026-09-30T16:00Z", "2026-09-30T15:00Z"));
  CHECK(range("2026-09-30T15:00Z", "2026-09-30T15:00Z"));       // [t, t) is empty
  CHECK(range("2026-09-30T17:00+02:00", "2026-09-30T15:00Z"));  // the same instant
  CHECK(!range("2026-09-30T15:00Z", "2026-09-30T15:00:00.001Z"));
  CHECK(range("-1h", "-2h"));
  CHECK(range("-1h", "-1h"));
  CHECK(!range("-2h", "-1h"));
  CHECK(!range("-1h", "2026-09-30T15:00Z"));  // known once the input's last hour is
  CHECK(!range("2026-09-30T16:00Z", nullptr));
  CHECK(!range(nullptr, "2026-09-30T15:00Z"));
}

TEST_CASE(
    "the entry filter: lanes, installations and hosts; budgets have no lane, answers neither lane nor installation") {
  CountLineView count;
  count.entries = {{"api.github.com", Api::rest, 101, "sweeper", 5},
                   {"api.github.com", Api::rest, 0, "other", 7},
                   {"uploads.github.com", Api::rest, 101, "other", 11}};
  CountLineView out;
  EntryFilter lane{{"other"}, {}, {}};
  REQUIRE(lane.apply(count, out));
  CHECK(out.entries.size() == 2);
  CHECK(out.total == 18);
  EntryFilter both{{"other"}, {"uploads.github.com"}, {101}};
  REQUIRE(both.apply(count, out));
  CHECK(out.total == 11);
  EntryFilter none{{"board-sync"}, {}, {}};
  CHECK(!none.apply(count, out));

  BudgetLineView budget;
  budget.entries = {{"api.github.com", Api::rest, 101, "", 10, 5000, 14h, std::nullopt},
                    {"api.github.com", Api::rest, 202, "", 20, 5000, 14h, std::nullopt}};
  BudgetLineView budget_out;
  REQUIRE(lane.apply(budget, budget_out));
  CHECK(budget_out.entries.size() == 2);
  EntryFilter inst{{}, {}, {202}};
  REQUIRE(inst.apply(budget, budget_out));
  CHECK(budget_out.entries.size() == 1);
  CHECK(budget_out.entries[0].installation == 202);

  AnswersLineView answers;
  answers.entries = {{"api.github.com", Api::rest, {}}, {"uploads.github.com", Api::rest, {}}};
  AnswersLineView answers_out;
  CHECK(!lane.apply(answers, answers_out));
  CHECK(!inst.apply(answers, answers_out));
  EntryFilter host{{}, {"uploads.github.com"}, {}};
  REQUIRE(host.apply(answers, answers_out));
  CHECK(answers_out.entries.size() == 1);
}
