// chart.h — the parts of the HTML page's SVG chart (render_chart.cc draws it):
// the time axis (chart_axis.cc), the lanes' colours (chart_lanes.cc) and the
// budget lines per resource (chart_budgets.cc).
//
// The axis keeps time: every hour from the first to the last has a slot, so a
// 6-hour gap in the logs is 6 empty slots. A log that spans more than
// kMaxFullAxis hours would make an axis of mostly nothing (two lines two years
// apart: 17,520 slots), so past that each run of more than kLongGap empty
// hours is cut down to one slot that says how long it was; the slot count is
// then at most kLongGap + 1 times the hours that have lines.
//
// Thread-safety: pure functions. Errors: none.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "report/fleet.h"

namespace forgemeter::report {

inline constexpr std::int64_t kMaxFullAxis = 1000;  // hours: about six weeks drawn slot by slot
inline constexpr std::int64_t kLongGap = 24;        // past that, longer empty runs are cut

struct ChartSlot {
  enum class Kind : std::uint8_t {
    hour,   // an hour with lines: hours[hour]
    empty,  // an hour without lines, in its place
    cut,    // `hours_cut` empty hours drawn as one slot
  };
  Kind kind = Kind::hour;
  Instant hour_ending{};       // hour, empty: the slot's hour; cut: the first hour left out
  std::size_t hour = 0;        // hour: its index in the report's hours
  std::int64_t hours_cut = 0;  // cut: how many hours it stands for
};

// The axis of `hours` (ascending, as Fleet::hours() gives them).
std::vector<ChartSlot> chart_slots(const std::vector<FleetHour>& hours);

// The label under each slot ("" for none): its hour ending, `15:00Z`, and on
// a second line its date (`Sep 30`, or `2026-09-30` when the axis spans
// years) when the axis spans days, so no two labels read the same. Labels go
// on the first slot and on hours that are a multiple of a round step (1, 2,
// 3, 4, 6, 12 hours, then days), never closer than one label's width.
struct SlotLabel {
  std::string time, date;  // date: "" on an axis within one day
  bool empty() const { return time.empty(); }
};
std::vector<SlotLabel> slot_labels(const std::vector<ChartSlot>& slots, double slot_width);

// A lane's colour, from its name alone, so a lane keeps its colour from one
// report to the next whatever other lanes they hold: `other` is grey, any
// other name picks one of a fixed palette of distinguishable colours by a
// hash of its bytes (two lanes may share one; segments are outlined and
// titled, and the legend names every lane).
std::string lane_color(std::string_view lane);
inline constexpr std::string_view kOtherColor = "#9aa5b1";

// Geometry the budget drawing shares with the bars.
struct ChartFrame {
  double left = 0, top = 0, plot_w = 0, plot_h = 0, slot = 0;
  double y_max = 1;  // requests at the top of the plot
  double x(std::size_t slot_index) const { return left + slot * static_cast<double>(slot_index); }
  double y(double requests) const { return top + plot_h - requests / y_max * plot_h; }
};

// The hourly budgets' limits as step lines over the bars they are held
// against: `<path class="budget" data-resource="core">` (REST requests) and
// `data-resource="graphql"` (points; GraphQL requests cost one or more).
std::string budget_limit_lines(const std::vector<FleetHour>& hours, const std::vector<ChartSlot>& slots,
                               const ChartFrame& f);
// The highest hourly limit drawn (for the plot's scale), 0 without one.
std::uint64_t highest_drawn_limit(const FleetHour& h);

// The panel under the bars: for every resource (core, graphql, search, …),
// the lowest remaining of each hour as a share of its limit, one line per
// resource (`<path class="left" data-resource=…>`, a point per hour with a
// reading: `<circle data-hour data-resource data-lowest data-limit>`); a gap
// breaks the line. `top`: where the panel begins; returns the SVG and sets
// `height` to the panel's.
std::string budget_left_panel(const std::vector<FleetHour>& hours, const std::vector<ChartSlot>& slots,
                              const ChartFrame& f, double top, double& height);

}  // namespace forgemeter::report
