// duration_arg.h — a duration given to a lease command (--ttl, --grace,
// --timeout, …): any form duration_text() prints, within bounds.
#pragma once

#include <chrono>
#include <string_view>

#include "forgemeter/clock.h"

namespace forgemeter::cli {

// `text` as a Duration in [min, max]; UsageError (exit 2) naming `option` otherwise.
Duration duration_arg(std::string_view text, std::string_view option, Duration min = std::chrono::milliseconds(1),
                      Duration max = std::chrono::hours(100'000));

}  // namespace forgemeter::cli
