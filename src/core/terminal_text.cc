#include "core/terminal_text.h"

namespace forgemeter::core_detail {

namespace {

constexpr char kHex[] = "0123456789abcdef";

// The length of the control sequence at `i` (1 for C0/DEL, 2 for a C1 in UTF-8), or 0.
std::size_t control_at(std::string_view t, std::size_t i) noexcept {
  const auto c = static_cast<unsigned char>(t[i]);
  if (c < 0x20 || c == 0x7f) return 1;
  if (c == 0xc2 && i + 1 < t.size()) {
    const auto next = static_cast<unsigned char>(t[i + 1]);
    if (next >= 0x80 && next <= 0x9f) return 2;
  }
  return 0;
}

void append_escaped(std::string& out, unsigned char c) {
  out += "\\x";
  out += kHex[c >> 4];
  out += kHex[c & 15];
}

}  // namespace

bool has_control_bytes(std::string_view text) noexcept {
  for (std::size_t i = 0; i < text.size(); ++i)
    if (control_at(text, i) != 0) return true;
  return false;
}

std::string terminal_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = control_at(text, i);
    if (n == 0) {
      out += text[i++];
      continue;
    }
    for (std::size_t k = 0; k < n; ++k, ++i) append_escaped(out, static_cast<unsigned char>(text[i]));
  }
  return out;
}

std::string ascii_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x7f)
      append_escaped(out, c);
    else
      out += ch;
  }
  return out;
}

}  // namespace forgemeter::core_detail
