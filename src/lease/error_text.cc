#include "lease/error_text.h"

namespace forgemeter::lease_detail {

std::string one_line(std::string_view s, std::size_t max) {
  s = s.substr(0, max);
  std::string out;
  out.reserve(s.size());
  for (char c : s) out.push_back(static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c);
  return out;
}

}  // namespace forgemeter::lease_detail
