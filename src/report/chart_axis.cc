// The chart's time axis: a slot per hour from the first to the last (empty
// ones included, long runs cut past kMaxFullAxis), and the labels under it.
#include <array>
#include <chrono>

#include <fmt/format.h>

#include "meter/civil.h"
#include "report/chart.h"

namespace forgemeter::report {

namespace {

using std::chrono::hours;

std::int64_t hours_between(Instant from, Instant to) { return std::chrono::duration_cast<hours>(to - from).count(); }

// The empty hours after `after`, before the next hour with lines.
void add_gap(std::vector<ChartSlot>& slots, Instant after, std::int64_t empty, bool cut_long) {
  if (cut_long && empty > kLongGap) {
    slots.push_back({ChartSlot::Kind::cut, after + hours(1), 0, empty});
    return;
  }
  for (std::int64_t k = 1; k <= empty; ++k) slots.push_back({ChartSlot::Kind::empty, after + hours(k), 0, 0});
}

std::int64_t hour_number(Instant t) { return std::chrono::floor<hours>(t).time_since_epoch().count(); }

// `Sep 30`, or `2026-09-30`: month names in English whatever the locale.
std::string date_text(std::chrono::year_month_day d, bool with_year) {
  constexpr std::array<const char*, 12> kMonths{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (with_year) return meter::hour_text(std::chrono::sys_days{d}).substr(0, 10);
  return fmt::format("{} {}", kMonths.at(static_cast<unsigned>(d.month()) - 1), static_cast<unsigned>(d.day()));
}

}  // namespace

std::vector<ChartSlot> chart_slots(const std::vector<FleetHour>& hours_with_lines) {
  std::vector<ChartSlot> slots;
  if (hours_with_lines.empty()) return slots;
  const bool cut_long =
      hours_between(hours_with_lines.front().hour_ending, hours_with_lines.back().hour_ending) >= kMaxFullAxis;
  for (std::size_t i = 0; i < hours_with_lines.size(); ++i) {
    if (i > 0) {
      const Instant before = hours_with_lines[i - 1].hour_ending;
      add_gap(slots, before, hours_between(before, hours_with_lines[i].hour_ending) - 1, cut_long);
    }
    slots.push_back({ChartSlot::Kind::hour, hours_with_lines[i].hour_ending, i, 0});
  }
  return slots;
}

std::vector<SlotLabel> slot_labels(const std::vector<ChartSlot>& slots, double slot_width) {
  std::vector<SlotLabel> labels(slots.size());
  if (slots.empty()) return labels;
  using std::chrono::floor, std::chrono::days, std::chrono::year_month_day;
  const year_month_day first{floor<days>(slots.front().hour_ending)}, last{floor<days>(slots.back().hour_ending)};
  const bool dated = first != last, with_year = first.year() != last.year();
  // A label is about 7 px a character at the chart's 11 px font.
  const double label_w = with_year ? 72 : 46, min_apart = label_w + 10;
  constexpr std::array<std::int64_t, 11> kSteps{1, 2, 3, 4, 6, 12, 24, 48, 168, 336, 672};
  std::int64_t step = kSteps.back();
  for (std::int64_t s : kSteps)
    if (static_cast<double>(s) * slot_width >= min_apart) {
      step = s;
      break;
    }
  double last_x = -1e9;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const ChartSlot& s = slots[i];
    const double x = slot_width * static_cast<double>(i);
    // The first slot is always labelled, so the axis names its first day.
    const bool on_step = i == 0 || hour_number(s.hour_ending) % step == 0;
    if (s.kind == ChartSlot::Kind::cut || !on_step || x - last_x < min_apart) continue;
    last_x = x;
    labels[i].time = meter::clock_text(s.hour_ending).substr(0, 5) + "Z";
    if (dated) labels[i].date = date_text(year_month_day{floor<days>(s.hour_ending)}, with_year);
  }
  return labels;
}

}  // namespace forgemeter::report
