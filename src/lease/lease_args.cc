// Validation of store arguments, the stores' millisecond truncation, and the
// names of LeaseStatus and LeaseState::Status (forgemeter/lease.h).
#include <fmt/format.h>

#include "core/duration_text.h"
#include "forgemeter/lease.h"

namespace forgemeter {
namespace {

bool ascii_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// Offset of the first byte that is not part of well-formed UTF-8 (no
// overlongs, no surrogates, nothing above U+10FFFF), or npos.
std::size_t bad_utf8_at(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0xC2 && c <= 0xDF)
      n = 1;
    else if (c == 0xE0) {
      n = 2;
      lo = 0xA0;
    } else if (c == 0xED) {
      n = 2;
      hi = 0x9F;
    } else if (c >= 0xE1 && c <= 0xEF)
      n = 2;
    else if (c == 0xF0) {
      n = 3;
      lo = 0x90;
    } else if (c == 0xF4) {
      n = 3;
      hi = 0x8F;
    } else if (c >= 0xF1 && c <= 0xF3)
      n = 3;
    else
      return i;
    for (std::size_t k = 1; k <= n; ++k) {
      if (i + k >= s.size()) return i;
      const auto b = static_cast<unsigned char>(s[i + k]);
      if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return i;
    }
    i += n + 1;
  }
  return std::string_view::npos;
}

std::optional<std::string> check_text(std::string_view what, std::string_view v) {
  if (v.empty()) return fmt::format("lease {} is empty", what);
  if (v.size() > kLeaseTextMaxBytes)
    return fmt::format("lease {} is {} bytes long (at most {})", what, v.size(), kLeaseTextMaxBytes);
  if (auto nul = v.find('\0'); nul != std::string_view::npos)
    return fmt::format("lease {} contains a NUL byte (at byte {})", what, nul);
  if (auto bad = bad_utf8_at(v); bad != std::string_view::npos)
    return fmt::format("lease {} is not valid UTF-8 (at byte {})", what, bad);
  bool blank = true;
  for (char c : v) blank = blank && ascii_space(static_cast<unsigned char>(c));
  if (blank) return fmt::format("lease {} is blank (only whitespace)", what);
  return std::nullopt;
}

}  // namespace

std::string_view to_string(LeaseStatus s) noexcept {
  switch (s) {
    case LeaseStatus::granted: return "granted";
    case LeaseStatus::refused: return "refused";
    case LeaseStatus::released: return "released";
    case LeaseStatus::not_held: return "not_held";
    case LeaseStatus::lost: return "lost";
    case LeaseStatus::no_answer: return "no_answer";
    case LeaseStatus::invalid: return "invalid";
  }
  return "unknown";
}

std::string_view to_string(LeaseState::Status s) noexcept {
  switch (s) {
    case LeaseState::Status::held: return "held";
    case LeaseState::Status::free: return "free";
    case LeaseState::Status::no_answer: return "no_answer";
    case LeaseState::Status::invalid: return "invalid";
  }
  return "unknown";
}

std::optional<std::string> check_lease_name(std::string_view name) { return check_text("name", name); }

std::optional<std::string> check_lease_args(std::string_view name, std::string_view owner) {
  if (auto why = check_text("name", name)) return why;
  return check_text("owner", owner);
}

std::optional<std::string> check_lease_args(std::string_view name, std::string_view owner, Duration ttl) {
  if (auto why = check_lease_args(name, owner)) return why;
  if (lease_ttl(ttl) < std::chrono::milliseconds(1))
    return fmt::format("lease TTL {} is under 1ms", core_detail::duration_text(ttl));
  return std::nullopt;
}

UtcMillis lease_stamp(WallTime now) noexcept { return std::chrono::floor<std::chrono::milliseconds>(now); }

std::chrono::milliseconds lease_ttl(Duration ttl) noexcept {
  return std::chrono::floor<std::chrono::milliseconds>(ttl);
}

}  // namespace forgemeter
