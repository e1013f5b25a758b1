#include "lease/duration_text.h"

#include <fmt/format.h>

#include <cstdint>

namespace forgemeter::lease_detail {
namespace {

// `whole` plus `thousandths` / 1000, trailing zeros dropped: 1.5, 45, 0.25.
std::string decimal(std::int64_t whole, std::int64_t thousandths) {
  if (thousandths == 0) return fmt::format("{}", whole);
  std::string f = fmt::format("{:03}", thousandths);
  while (f.back() == '0') f.pop_back();
  return fmt::format("{}.{}", whole, f);
}

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

}  // namespace forgemeter::lease_detail
