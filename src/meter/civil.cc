#include "meter/civil.h"

#include <fmt/format.h>

namespace forgemeter::meter {

using namespace std::chrono;

TimeOfDay time_of_day(sys_seconds t) noexcept {
  const auto day = floor<days>(t);
  return t - day;
}

namespace {

// `YYYY-MM-DDTHH:MM` (the date and time of day of `t`), then `tail`.
void append_date_minute(std::string& out, sys_seconds t, std::string_view tail) {
  const auto day = floor<days>(t);
  const year_month_day ymd{day};
  const auto s = (t - day).count();
  fmt::format_to(std::back_inserter(out), "{:04}-{:02}-{:02}T{:02}:{:02}{}", static_cast<int>(ymd.year()),
                 static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()), s / 3600, s / 60 % 60, tail);
}

}  // namespace

void append_hour(std::string& out, sys_seconds hour) { append_date_minute(out, floor<hours>(hour), "Z"); }

void append_time_of_day(std::string& out, TimeOfDay t) {
  const auto s = (t.count() % 86400 + 86400) % 86400;  // a hand-made value still gives a valid time
  fmt::format_to(std::back_inserter(out), "{:02}:{:02}:{:02}Z", s / 3600, s / 60 % 60, s % 60);
}

std::string hour_text(sys_seconds t) {
  std::string out;
  append_date_minute(out, t, "Z");
  return out;
}

std::string instant_text(sys_seconds t) {
  std::string out;
  append_date_minute(out, t, fmt::format(":{:02}Z", (t - floor<minutes>(t)).count()));
  return out;
}

std::string clock_text(sys_seconds t) {
  std::string out;
  append_time_of_day(out, time_of_day(t));
  return out;
}

namespace {

// Reads exactly text.size() decimal digits.
std::optional<int> digits(std::string_view text) noexcept {
  int v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace

std::optional<sys_seconds> parse_hour(std::string_view t) noexcept {
  // YYYY-MM-DDTHH:00Z
  if (t.size() != 17 || t[4] != '-' || t[7] != '-' || t[10] != 'T' || t.substr(13) != ":00Z") return std::nullopt;
  auto y = digits(t.substr(0, 4)), m = digits(t.substr(5, 2)), d = digits(t.substr(8, 2)), h = digits(t.substr(11, 2));
  if (!y || !m || !d || !h || *h > 23) return std::nullopt;
  const year_month_day ymd{year{*y}, month{static_cast<unsigned>(*m)}, day{static_cast<unsigned>(*d)}};
  if (!ymd.ok()) return std::nullopt;
  return sys_seconds{sys_days{ymd}} + hours{*h};
}

std::optional<TimeOfDay> parse_time_of_day(std::string_view t) noexcept {
  // HH:MM:SSZ
  if (t.size() != 9 || t[2] != ':' || t[5] != ':' || t[8] != 'Z') return std::nullopt;
  auto h = digits(t.substr(0, 2)), m = digits(t.substr(3, 2)), s = digits(t.substr(6, 2));
  if (!h || !m || !s || *h > 23 || *m > 59 || *s > 59) return std::nullopt;
  return TimeOfDay{*h * 3600 + *m * 60 + *s};
}

}  // namespace forgemeter::meter
