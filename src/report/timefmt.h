// timefmt.h — UTC instants as the meter lines spell them.
#pragma once

#include <chrono>
#include <string>

namespace forgemeter::report {

std::string hour_text(std::chrono::sys_seconds t);     // 2026-09-30T15:00Z
std::string instant_text(std::chrono::sys_seconds t);  // 2026-09-30T14:37:12Z
std::string clock_text(std::chrono::sys_seconds t);    // 14:37:12Z

}  // namespace forgemeter::report
