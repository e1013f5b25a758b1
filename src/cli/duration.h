// duration.h — durations on the command line: `90s`, `1.5s`, `250ms`, `3m`, `1h`.
#pragma once

#include <string>
#include <string_view>

#include "forgemeter/clock.h"

namespace forgemeter::cli {

// Throws UsageError naming `option` when `text` is not a positive duration
// with a unit (ms, s, m, h).
Duration parse_duration(std::string_view text, std::string_view option);

// The shortest exact spelling: 90000ms -> "90s", 180s -> "3m", 1500ms -> "1500ms".
std::string format_duration(Duration d);

}  // namespace forgemeter::cli
