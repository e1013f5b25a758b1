#include "report/timefmt.h"

#include <fmt/format.h>

namespace forgemeter::report {

namespace {

struct Parts {
  int y;
  unsigned mo, d;
  long h, mi, s;
};

Parts split(std::chrono::sys_seconds t) {
  using namespace std::chrono;
  auto day = floor<days>(t);
  year_month_day ymd{day};
  hh_mm_ss hms{t - day};
  return {int(ymd.year()), unsigned(ymd.month()), unsigned(ymd.day()), long(hms.hours().count()),
          long(hms.minutes().count()), long(hms.seconds().count())};
}

// Writes `v` (0 <= v < 10^width) as `width` digits at `at`. Reports render
// thousands of hours, so the common years skip fmt's format parsing.
void digits(char* at, long v, int width) {
  for (int i = width - 1; i >= 0; --i, v /= 10) at[i] = static_cast<char>('0' + v % 10);
}

// "YYYY-MM-DDTHH:MM[:SS]Z", by hand for years 0000-9999 and by fmt otherwise.
std::string date_time(const Parts& p, bool seconds) {
  if (p.y < 0 || p.y > 9999) {
    return seconds ? fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", p.y, p.mo, p.d, p.h, p.mi, p.s)
                   : fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}Z", p.y, p.mo, p.d, p.h, p.mi);
  }
  std::string out = seconds ? "0000-00-00T00:00:00Z" : "0000-00-00T00:00Z";
  digits(&out[0], p.y, 4);
  digits(&out[5], p.mo, 2);
  digits(&out[8], p.d, 2);
  digits(&out[11], p.h, 2);
  digits(&out[14], p.mi, 2);
  if (seconds) digits(&out[17], p.s, 2);
  return out;
}

}  // namespace

std::string hour_text(std::chrono::sys_seconds t) { return date_time(split(t), false); }

std::string instant_text(std::chrono::sys_seconds t) { return date_time(split(t), true); }

std::string clock_text(std::chrono::sys_seconds t) {
  Parts p = split(t);
  return fmt::format("{:02}:{:02}:{:02}Z", p.h, p.mi, p.s);
}

}  // namespace forgemeter::report
