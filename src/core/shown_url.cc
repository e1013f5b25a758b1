#include "core/shown_url.h"

#include "core/terminal_text.h"

namespace forgemeter::core_detail {

namespace {

constexpr std::string_view kMask = "***";

bool ends_authority(char c) noexcept {
  return c == '/' || c == '?' || c == '#' || c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// The userinfo of the URL whose authority starts at `start` in `text`
// (just past its `://`), as [start, at) with `at` its last `@`; npos when
// it has none.
std::size_t userinfo_end(std::string_view text, std::size_t start) noexcept {
  std::size_t end = start;
  while (end < text.size() && !ends_authority(text[end])) ++end;
  const std::size_t at = text.substr(start, end - start).rfind('@');
  return at == std::string_view::npos ? std::string_view::npos : start + at;
}

}  // namespace

std::string shown_url(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t copied = 0;
  for (std::size_t at = text.find("://"); at != std::string_view::npos; at = text.find("://", at + 3)) {
    const std::size_t start = at + 3;
    const std::size_t sign = userinfo_end(text, start);
    if (sign == std::string_view::npos) continue;
    const std::size_t colon = text.substr(start, sign - start).find(':');
    if (colon == std::string_view::npos || start + colon + 1 == sign) continue;  // no password
    out.append(text.substr(copied, start + colon + 1 - copied)).append(kMask);
    copied = sign;
    at = sign;
  }
  out.append(text.substr(copied));
  return terminal_text(out);
}

bool has_userinfo(std::string_view url) noexcept {
  const std::size_t at = url.find("://");
  return at != std::string_view::npos && userinfo_end(url, at + 3) != std::string_view::npos;
}

}  // namespace forgemeter::core_detail
