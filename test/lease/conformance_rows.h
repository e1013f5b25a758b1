// What the conformance rows' files (test/lease/conformance*.cc) share: the
// fixed instant the rows start at, the deadline of a call, and an instant's
// millisecond as a store keeps it. For the rows only: a store's test binary
// includes conformance.h alone.
#pragma once

#include <chrono>

#include "lease/conformance.h"

namespace forgemeter::conformance {

// A fixed instant (2026-09-21T11:33:20Z): rows never depend on the time of day.
inline const WallTime t0{std::chrono::milliseconds(1'790'000'000'000)};

// A real-clock deadline a healthy store answers well within.
inline Deadline ok() { return Deadline::after(system_clock(), std::chrono::seconds(10)); }

// `t` floored to its millisecond: the expiry a store reports for it.
inline UtcMillis at(WallTime t) { return std::chrono::floor<std::chrono::milliseconds>(t); }

}  // namespace forgemeter::conformance
