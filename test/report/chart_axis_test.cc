// The chart's time axis and lane colours, in process: gaps kept slot for
// slot, long gaps of a multi-year log cut to one slot, labels that never
// repeat, colours that follow the lane's name.
#include <doctest/doctest.h>

#include <set>

#include "report/chart.h"

using namespace forgemeter::report;
using std::chrono::hours;

namespace {

const Instant kStart = std::chrono::sys_days{std::chrono::year{2026} / 9 / 30} + hours(1);

std::vector<FleetHour> at_hours(const std::vector<int>& offsets) {
  std::vector<FleetHour> out;
  for (int h : offsets) {
    out.emplace_back();
    out.back().hour_ending = kStart + hours(h);
  }
  return out;
}

std::size_t count(const std::vector<ChartSlot>& slots, ChartSlot::Kind kind) {
  std::size_t n = 0;
  for (const auto& s : slots) n += s.kind == kind ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("a 6-hour gap is 6 empty slots, each its hour") {
  const auto slots = chart_slots(at_hours({0, 1, 8}));
  REQUIRE(slots.size() == 9);
  CHECK(count(slots, ChartSlot::Kind::empty) == 6);
  for (int k = 2; k <= 7; ++k) {
    CHECK(slots[static_cast<std::size_t>(k)].kind == ChartSlot::Kind::empty);
    CHECK(slots[static_cast<std::size_t>(k)].hour_ending == kStart + hours(k));
  }
  CHECK(slots[8].kind == ChartSlot::Kind::hour);
  CHECK(slots[8].hour == 2);
}

TEST_CASE("a multi-year log: gaps over a day are cut to one slot, shorter ones kept") {
  // Three hours in 2026, a 5-hour gap, then two years later one hour.
  const int two_years = 2 * 365 * 24;
  const auto slots = chart_slots(at_hours({0, 1, 2, 8, two_years}));
  CHECK(count(slots, ChartSlot::Kind::hour) == 5);
  CHECK(count(slots, ChartSlot::Kind::empty) == 5);
  REQUIRE(count(slots, ChartSlot::Kind::cut) == 1);
  CHECK(slots.size() == 11);
  CHECK(slots[9].hours_cut == two_years - 8 - 1);
  CHECK(slots[9].hour_ending == kStart + hours(9));
  // Just under the bound nothing is cut.
  CHECK(chart_slots(at_hours({0, static_cast<int>(kMaxFullAxis) - 1})).size() ==
        static_cast<std::size_t>(kMaxFullAxis));
  CHECK(chart_slots(at_hours({0, static_cast<int>(kMaxFullAxis)})).size() == 3);
}

TEST_CASE("labels: times alone within a day; dated, and never twice the same, across days") {
  const auto day = slot_labels(chart_slots(at_hours({0, 5})), 100);
  CHECK(day[0].time == "01:00Z");
  CHECK(day[0].date.empty());
  // 54 hours: 01:00Z of three days.
  const auto slots = chart_slots(at_hours({0, 53}));
  for (double width : {100.0, 16.0, 9.0}) {
    CAPTURE(width);
    const auto labels = slot_labels(slots, width);
    std::set<std::string> seen;
    std::size_t n = 0;
    for (const auto& l : labels) {
      if (l.empty()) continue;
      ++n;
      CHECK(!l.date.empty());
      CHECK(seen.insert(l.time + " " + l.date).second);
    }
    CHECK(n >= 4);
  }
  CHECK(slot_labels(slots, 100)[0].date == "Sep 30");
  CHECK(slot_labels(slots, 100)[23].date == "Oct 1");  // the hour ending midnight is the next day's
  const auto years = slot_labels(chart_slots(at_hours({0, 3 * 365 * 24})), 100);
  CHECK(years[0].date == "2026-09-30");
}

TEST_CASE("lane colours: from the name alone; `other` grey, no other lane grey") {
  CHECK(lane_color("other") == kOtherColor);
  std::set<std::string> colors;
  for (const char* lane : {"merge-gate-sweeper", "pr-search", "sweeper", "alpha", "beta", "deploy", "ci", "x"}) {
    CHECK(lane_color(lane) == lane_color(std::string(lane)));
    CHECK(lane_color(lane) != kOtherColor);
    colors.insert(lane_color(lane));
  }
  CHECK(colors.size() >= 5);                                           // a hash into ten colours spreads them
  CHECK(lane_color("merge-gate-sweeper") != lane_color("pr-search"));  // the demo's two lanes
}
