// Test helper: the instant and the deadline the PostgresStore tests call with.
// A test opens with `using namespace forgemeter; using namespace fmtest;`.
#pragma once

#include <chrono>

#include "forgemeter/lease.h"

namespace fmtest {

// The caller's `now` in store tests: a fixed instant, never the server's now().
inline const forgemeter::WallTime t0{std::chrono::milliseconds(1'790'000'000'000)};

// A deadline no answer from a healthy loopback server comes near.
inline forgemeter::Deadline ok() {
  return forgemeter::Deadline::after(forgemeter::system_clock(), std::chrono::seconds(10));
}

}  // namespace fmtest
