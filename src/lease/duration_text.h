// Short, stable text for a duration in log lines and error messages:
// 3m, 1m30s, 1.5s, 250ms, 0.25ms, 2h30m, 1h0m5s. Internal to the lease room.
#pragma once

#include <string>

#include "forgemeter/clock.h"

namespace forgemeter::lease_detail {

std::string duration_text(Duration d);

}  // namespace forgemeter::lease_detail
