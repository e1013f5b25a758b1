// The instant the pacing tests' ManualClocks start at.
#pragma once

#include <chrono>

#include "forgemeter/clock.h"

namespace fmtest {

// 2026-12-05 14:00:00Z: the budgets' windows start on whole seconds.
inline constexpr forgemeter::UtcMillis kPaceStart{std::chrono::milliseconds(1796479200000)};

}  // namespace fmtest
