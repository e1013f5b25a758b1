#include "meter/window.h"

namespace forgemeter::meter {

namespace {

// Products of a budget (< 2^64) and seconds (<= an hour) do not fit 64 bits; GCC and Clang's 128-bit integer
// holds them (`__extension__`: not ISO C++, said once here).
__extension__ using Wide = unsigned __int128;

// `a × b / c`, rounded up or down.
Wide mul_div(std::uint64_t a, std::uint64_t b, std::uint64_t c, bool up) {
  const Wide p = static_cast<Wide>(a) * b;
  return (up ? p + c - 1 : p) / c;
}

}  // namespace

WindowRate project_window(std::uint64_t remaining, std::uint64_t limit, std::chrono::sys_seconds at,
                          std::chrono::sys_seconds resets) {
  using std::chrono::seconds;
  WindowRate w;
  w.elapsed = at - (resets - kHourlyWindow);
  w.spent = limit > remaining ? limit - remaining : 0;
  const auto to_reset = static_cast<std::uint64_t>((resets - at).count());
  const auto elapsed = static_cast<std::uint64_t>(w.elapsed.count());
  if (w.spent == 0 || elapsed == 0) {
    w.left_at_reset = remaining;
    return w;
  }
  const Wide lasts = mul_div(remaining, elapsed, w.spent, true);  // seconds
  if (lasts < to_reset) {
    w.runs_out_at = at + seconds(static_cast<std::int64_t>(lasts));
    return w;
  }
  const Wide spends = mul_div(w.spent, to_reset, elapsed, false);
  w.left_at_reset = spends >= remaining ? 0 : remaining - static_cast<std::uint64_t>(spends);
  return w;
}

}  // namespace forgemeter::meter
