// Test support: awaiting a condition (polled every 10 ms) instead of sleeping.
#pragma once

#include <chrono>
#include <thread>

namespace fmtest {

// Polls `pred` until it holds (true) or `timeout` passes (false).
template <typename Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (pred()) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace fmtest
