// http_token.h — RFC 9110's token (a method, a header name, a Vary member)
// and the bytes that would split a line on the wire: what every room that
// writes or keeps a header checks.
// Thread-safety: pure functions. Errors: none.
#pragma once

#include <array>
#include <string_view>

namespace forgemeter::core_detail {

// RFC 9110 tchar, as a table (checked for every byte of every header name).
inline constexpr auto kTchar = [] {
  std::array<bool, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[c] = true;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = t[c - 'a' + 'A'] = true;
  for (char c : std::string_view("!#$%&'*+-.^_`|~")) t[static_cast<unsigned char>(c)] = true;
  return t;
}();

inline bool is_token(std::string_view s) noexcept {
  if (s.empty()) return false;
  for (unsigned char c : s)
    if (!kTchar[c]) return false;
  return true;
}

// Whether `s` holds a C0 control byte or DEL (one would split a line).
inline bool has_control(std::string_view s) noexcept {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f) return true;
  return false;
}

}  // namespace forgemeter::core_detail
