#include "core/ascii.h"

namespace forgemeter::core_detail {

std::string ascii_lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

}  // namespace forgemeter::core_detail
