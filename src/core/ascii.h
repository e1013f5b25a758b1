// ascii.h — the small text jobs every room does on protocol text: header
// names, schemes, host names, tokens, hex escapes. ASCII only, by rule: the
// C library's locale-dependent tolower/strcasecmp are never used on forge,
// store or caller bytes (a Turkish locale lowercases 'I' to a dotless i).
// Thread-safety: pure functions. Errors: none (but std::bad_alloc).
#pragma once

#include "forgemeter/export.h"

#include <string>
#include <string_view>

namespace forgemeter::core_detail {

constexpr char ascii_lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Whether two names are the same, any ASCII case ("Etag" and "ETag").
constexpr bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  return true;
}

// Whether `text` begins with `prefix`, any ASCII case.
constexpr bool istarts_with(std::string_view text, std::string_view prefix) noexcept {
  return text.size() >= prefix.size() && iequals(text.substr(0, prefix.size()), prefix);
}

// The value of a hex digit (0-9, a-f, A-F), or -1.
constexpr int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// `text` with A-Z as a-z.
FORGEMETER_API std::string ascii_lowercase(std::string_view text);

// `text` without leading and trailing spaces and tabs (HTTP's OWS), or, with
// `all_space`, without any of " \t\r\n\f\v" (a line read from a file, a
// header line with its CRLF, a library's message with its newline). Inline:
// the meter trims every header of every answer.
constexpr std::string_view trimmed(std::string_view text, bool all_space = false) noexcept {
  const auto space = [all_space](char c) {
    return c == ' ' || c == '\t' || (all_space && (c == '\r' || c == '\n' || c == '\f' || c == '\v'));
  };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

}  // namespace forgemeter::core_detail
