#include "cli/timefmt.h"

#include <fmt/format.h>

namespace forgemeter::cli {

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

}  // namespace

std::string hour_text(std::chrono::sys_seconds t) {
  Parts p = split(t);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}Z", p.y, p.mo, p.d, p.h, p.mi);
}

std::string instant_text(std::chrono::sys_seconds t) {
  Parts p = split(t);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", p.y, p.mo, p.d, p.h, p.mi, p.s);
}

std::string clock_text(std::chrono::sys_seconds t) {
  Parts p = split(t);
  return fmt::format("{:02}:{:02}:{:02}Z", p.h, p.mi, p.s);
}

}  // namespace forgemeter::cli
