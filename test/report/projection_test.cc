// The projection model (src/report/projection.h) at its edges: what it
// says without a rate, and when the hour is in progress.
#include <doctest/doctest.h>

#include <limits>

#include "report/projection.h"

using namespace forgemeter;
using namespace forgemeter::report;
using namespace std::chrono;

namespace {

const sys_seconds kH15 = sys_days{2026y / 9 / 30} + 15h;

FleetHour hour_with(std::optional<std::uint64_t> remaining, std::optional<std::uint64_t> limit,
                    std::optional<Instant> resets) {
  FleetHour h;
  h.hour_ending = kH15;
  BudgetView& b = h.budgets[BudgetKey{"api.github.com", Api::rest, 101, ""}];
  b.requests = 10;
  b.lowest = remaining;
  b.lowest_at = kH15 - 30min;
  b.limit = limit;
  b.resets = resets;
  return h;
}

Projection only(const FleetHour& h) {
  auto p = project(h, kH15 - 20min);
  REQUIRE(p.size() == 1);
  return p[0];
}

}  // namespace

TEST_CASE("the hour in progress is the last one, when it holds now") {
  std::vector<FleetHour> hours(2);
  hours[0].hour_ending = kH15 - 1h;
  hours[1].hour_ending = kH15;
  CHECK(hour_in_progress(hours, kH15 - 1h) == &hours[1]);  // its start is in it
  CHECK(hour_in_progress(hours, kH15 - 1s) == &hours[1]);
  CHECK(hour_in_progress(hours, kH15) == nullptr);  // its end is the next hour's
  CHECK(hour_in_progress(hours, kH15 - 1h - 1s) == nullptr);
  CHECK(hour_in_progress(hours, std::nullopt) == nullptr);
  CHECK(hour_in_progress({}, kH15) == nullptr);
}

TEST_CASE("no rate, no projection: each reason said") {
  CHECK(only(hour_with(std::nullopt, 5000, kH15)).no_projection == "no budget reading this hour");
  CHECK(only(hour_with(100, std::nullopt, kH15)).no_projection.starts_with("the reading has no limit"));
  CHECK(only(hour_with(100, 5000, kH15 + 1h)).no_projection.starts_with("its reset (16:00:00Z) is more than an hour"));
  const Projection out = only(hour_with(0, 5000, kH15));
  CHECK(out.out);
  CHECK(out.no_projection.empty());
  CHECK(!out.runs_out_at);
}

TEST_CASE("the rate is the window's: limit - remaining since reset - 1 h; exact at any size") {
  // 14:30: 4000 of 5000 spent since 14:00 (reset 15:00): 1000 left lasts 7m30s.
  Projection p = only(hour_with(1000, 5000, kH15));
  CHECK(p.spent == 4000);
  CHECK(p.elapsed == 30min);
  CHECK(p.runs_out_at == kH15 - 30min + 7min + 30s);
  // Budgets near 2^64 do not wrap: 2^63 - 1 of 2^64 - 1 spent in 30 minutes; the 30 to the reset spend
  // as much, leaving 1 of the 2^63.
  const std::uint64_t big = std::uint64_t{1} << 63;
  p = only(hour_with(big, std::numeric_limits<std::uint64_t>::max(), kH15));
  CHECK(p.spent == big - 1);
  CHECK(!p.runs_out_at);
  CHECK(p.left_at_reset == 1);
}
