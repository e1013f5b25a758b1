#include "cli/duration.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "cli/errors.h"

namespace forgemeter::cli {

Duration parse_duration(std::string_view text, std::string_view option) {
  auto bad = [&] {
    return UsageError(fmt::format("{} wants a positive duration with a unit, like 90s, 1.5s, 250ms, 3m or 1h (got '{}')",
                                  option, text));
  };
  std::size_t digits = 0;
  while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.')) ++digits;
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + digits, value);
  if (digits == 0 || ec != std::errc{} || end != text.data() + digits) throw bad();
  std::string_view unit = text.substr(digits);
  double ns_per = 0;
  if (unit == "ms") ns_per = 1e6;
  else if (unit == "s") ns_per = 1e9;
  else if (unit == "m") ns_per = 60e9;
  else if (unit == "h") ns_per = 3600e9;
  else throw bad();
  double ns = value * ns_per;
  if (!(ns >= 1e6) || ns > 1e18) throw bad();  // at least 1 ms, at most ~31 years
  return Duration(static_cast<Duration::rep>(std::llround(ns)));
}

std::string format_duration(Duration d) {
  using namespace std::chrono;
  auto ms = duration_cast<milliseconds>(d).count();
  if (ms % 3'600'000 == 0 && ms > 0) return fmt::format("{}h", ms / 3'600'000);
  if (ms % 60'000 == 0 && ms > 0) return fmt::format("{}m", ms / 60'000);
  if (ms % 1000 == 0) return fmt::format("{}s", ms / 1000);
  return fmt::format("{}ms", ms);
}

}  // namespace forgemeter::cli
