#include "core/ascii.h"

namespace forgemeter::core_detail {

std::string ascii_lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

std::string_view trimmed(std::string_view text, bool all_space) noexcept {
  const std::string_view space = all_space ? std::string_view(" \t\r\n\f\v") : std::string_view(" \t");
  const auto first = text.find_first_not_of(space);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(space) - first + 1);
}

}  // namespace forgemeter::core_detail
