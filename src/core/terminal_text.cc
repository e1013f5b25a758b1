#include "core/terminal_text.h"

namespace forgemeter::core_detail {

namespace {

constexpr char kHex[] = "0123456789abcdef";

constexpr std::string_view kCut = "…";

// The length of the control sequence at `i` (1 for C0/DEL, 2 for a C1 in
// UTF-8, 3 for U+2028/U+2029), or 0.
std::size_t control_at(std::string_view t, std::size_t i) noexcept {
  const auto c = static_cast<unsigned char>(t[i]);
  if (c < 0x20 || c == 0x7f) return 1;
  const auto at = [&](std::size_t k) { return i + k < t.size() ? static_cast<unsigned char>(t[i + k]) : 0; };
  if (c == 0xc2 && at(1) >= 0x80 && at(1) <= 0x9f) return 2;
  if (c == 0xe2 && at(1) == 0x80 && (at(2) == 0xa8 || at(2) == 0xa9)) return 3;
  return 0;
}

bool continuation(char c) noexcept { return (static_cast<unsigned char>(c) & 0xc0) == 0x80; }

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

std::string terminal_text(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return terminal_text(text);
  // Back to the start of the character at the bound (a UTF-8 character has
  // at most three continuation bytes; past them the text is not UTF-8).
  std::size_t cut = max_bytes;
  for (int k = 0; k < 3 && cut > 0 && continuation(text[cut]); ++k) --cut;
  if (continuation(text[cut])) cut = max_bytes;
  std::string out = terminal_text(text.substr(0, cut));
  out += kCut;
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
