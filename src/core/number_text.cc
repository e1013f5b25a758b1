#include "core/number_text.h"

#include <charconv>

#include <fmt/format.h>

namespace forgemeter::core_detail {

std::optional<std::uint64_t> parse_whole(std::string_view text, std::uint64_t lo, std::uint64_t hi) noexcept {
  // from_chars takes no '+' and no space, but a '-' on its own would be refused by the type only.
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || v < lo || v > hi) return std::nullopt;
  return v;
}

std::string whole_problem(std::string_view text, std::string_view what, std::uint64_t lo, std::uint64_t hi) {
  return fmt::format("'{}' is not {}: give a whole number from {} to {}", text, what, lo, hi);
}

std::optional<double> parse_decimal(std::string_view text, double lo, double hi) noexcept {
  const auto dot = text.find('.');
  if (text.empty() || text == "." || text.find_first_not_of("0123456789.") != std::string_view::npos ||
      (dot != std::string_view::npos && text.find('.', dot + 1) != std::string_view::npos))
    return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || !(v >= lo && v <= hi)) return std::nullopt;
  return v;
}

std::string decimal_problem(std::string_view text, std::string_view what, double lo, double hi) {
  return fmt::format("'{}' is not {}: give a number from {} to {}", text, what, lo, hi);
}

}  // namespace forgemeter::core_detail
