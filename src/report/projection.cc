#include "report/projection.h"

#include <fmt/format.h>

#include "meter/civil.h"
#include "meter/window.h"

namespace forgemeter::report {

namespace {

using std::chrono::seconds;

// Projects `p` (its reading filled in) at the window's rate; says why not when it cannot.
void project_reading(Projection& p, Instant now) {
  using meter::clock_text;
  if (!p.remaining) {
    p.no_projection = "no budget reading this hour";
    return;
  }
  if (*p.remaining == 0) {
    p.out = true;
    return;
  }
  if (!p.limit) {
    p.no_projection = "the reading has no limit (' of N'; --budget gives one)";
    return;
  }
  if (!p.resets) {
    p.no_projection = "the reading has no reset time, so its window is unknown";
    return;
  }
  if (*p.resets <= now) {
    p.no_projection =
        fmt::format("its window reset at {}, and no reading of the next window is lower", clock_text(*p.resets));
    return;
  }
  p.elapsed = p.at - (*p.resets - meter::kHourlyWindow);
  if (p.elapsed <= seconds(0)) {
    p.no_projection = fmt::format("its reset ({}) is more than an hour after the reading: not an hourly window",
                                  clock_text(*p.resets));
    return;
  }
  const meter::WindowRate w = meter::project_window(*p.remaining, *p.limit, p.at, *p.resets);
  p.spent = w.spent;
  p.runs_out_at = w.runs_out_at;
  p.left_at_reset = w.left_at_reset;
}

}  // namespace

double Projection::per_minute() const {
  return elapsed.count() > 0 ? static_cast<double>(spent) * 60.0 / static_cast<double>(elapsed.count()) : 0.0;
}

const FleetHour* hour_in_progress(const std::vector<FleetHour>& hours, std::optional<Instant> now) {
  if (hours.empty() || !now) return nullptr;
  const FleetHour& last = hours.back();
  return last.hour_start() <= *now && *now < last.hour_ending ? &last : nullptr;
}

std::vector<Projection> project(const FleetHour& h, Instant now) {
  std::vector<Projection> out;
  for (const auto& [key, b] : h.budgets) {
    if (b.kind != BudgetKind::core) continue;
    Projection p;
    p.key = key;
    p.remaining = b.lowest;
    p.at = b.lowest_at;
    p.limit = b.limit;
    p.resets = b.resets;
    project_reading(p, now);
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<Burst> startup_bursts(const FleetHour& h, seconds within) {
  std::vector<Burst> out;
  for (const auto& [key, b] : h.budgets) {
    if (!b.hourly() || !b.exhausted_at || !b.resets) continue;
    const Instant start = *b.resets - meter::kHourlyWindow;
    if (start <= *b.exhausted_at && *b.exhausted_at - start <= within)
      out.push_back(Burst{key, start, *b.exhausted_at});
  }
  return out;
}

}  // namespace forgemeter::report
