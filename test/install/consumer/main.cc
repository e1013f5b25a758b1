// Built against an installed forgemeter: counts two requests, flushes, checks the line.
#include <forgemeter/meter.h>

#include <cstdio>
#include <string>

int main() {
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
