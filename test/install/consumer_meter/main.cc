// Built against the meter component alone (CMake): counts two
// requests, flushes, checks the line and that headers and library agree.
#include <forgemeter/meter.h>
#include <forgemeter/version.h>

#include <cstdio>
#include <cstring>
#include <string>

int main() {
  static_assert(FORGEMETER_VERSION >= 100, "version macros");
  if (std::strcmp(forgemeter::version(), FORGEMETER_VERSION_STRING) != 0) return 2;
  std::string got;
  {
    forgemeter::Meter meter({.sink = [&](std::string_view line) { got += std::string(line) + "\n"; }});
    forgemeter::LaneScope lane{forgemeter::Lane{"consumer"}};
    meter.record_request({.host = "api.github.com", .lane = forgemeter::current_lane()});
    meter.record_request({.host = "api.github.com", .lane = forgemeter::current_lane()});
  }
  std::fputs(got.c_str(), stdout);
  return got.find("forge HTTP: 2 requests") == std::string::npos ? 1 : 0;
}
