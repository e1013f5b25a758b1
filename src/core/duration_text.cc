#include "core/duration_text.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>

namespace forgemeter::core_detail {
namespace {

// `whole` plus `thousandths` / 1000, trailing zeros dropped: 1.5, 45, 0.25.
std::string decimal(std::int64_t whole, std::int64_t thousandths) {
  if (thousandths == 0) return fmt::format("{}", whole);
  std::string f = fmt::format("{:03}", thousandths);
  while (f.back() == '0') f.pop_back();
  return fmt::format("{}.{}", whole, f);
}

struct Unit {
  std::string_view name;
  long double ns;
};
// Largest first; "ms" before "m" so that the longer name is tried first.
constexpr std::array<Unit, 4> kUnits{{{"h", 3600e9L}, {"ms", 1e6L}, {"m", 60e9L}, {"s", 1e9L}}};
constexpr std::array<int, 4> kRank{0, 3, 1, 2};  // h > m > s > ms, by index in kUnits

}  // namespace

std::string duration_text(Duration d) {
  using namespace std::chrono;
  if (d < Duration::zero()) return "-" + duration_text(-d);
  const std::int64_t ns = d.count();
  if (ns == 0) return "0s";
  if (d < 1ms) return decimal(0, ns / 1'000) + "ms";  // microsecond precision
  if (d < 1s) return decimal(ns / 1'000'000, (ns / 1'000) % 1'000) + "ms";
  const std::int64_t ms = ns / 1'000'000;
  const std::int64_t h = ms / 3'600'000, m = (ms / 60'000) % 60, s = (ms / 1'000) % 60, frac = ms % 1'000;
  std::string out;
  if (h > 0) out += fmt::format("{}h", h);
  if (m > 0 || (h > 0 && (s > 0 || frac > 0))) out += fmt::format("{}m", m);
  if (s > 0 || frac > 0) out += decimal(s, frac) + "s";
  return out;
}

std::optional<long double> parse_duration_length(std::string_view text) noexcept {
  long double total = 0;
  int last_rank = -1;
  std::size_t i = 0;
  if (text.empty()) return std::nullopt;
  while (i < text.size()) {
    long double value = 0, scale = 1;
    std::size_t digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) value = value * 10 + (text[i] - '0');
    if (i < text.size() && text[i] == '.') {
      std::size_t fraction = 0;
      for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++fraction)
        value += (text[i] - '0') * (scale /= 10);
      if (fraction == 0) return std::nullopt;  // "1.s"
    }
    if (digits == 0 || digits > 18) return std::nullopt;
    std::size_t u = 0;
    while (u < kUnits.size() && !text.substr(i).starts_with(kUnits[u].name)) ++u;
    if (u == kUnits.size() || kRank[u] <= last_rank) return std::nullopt;  // no unit, or out of order
    last_rank = kRank[u];
    i += kUnits[u].name.size();
    total += value * kUnits[u].ns;
  }
  return total;
}

std::optional<Duration> parse_duration(std::string_view text) noexcept {
  const auto total = parse_duration_length(text);
  if (!total || *total > static_cast<long double>(kMaxParsedDuration.count())) return std::nullopt;
  return Duration(static_cast<Duration::rep>(*total + 0.5L));
}

}  // namespace forgemeter::core_detail
