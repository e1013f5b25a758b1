// test/lease/wake_check.h — one check the stores' wake-up tests share: a take
// on `holder` wakes a candidate waiting on `candidate`, and so does its release
// (within 1 s: a notification on loopback, on a loaded 2-core machine).
#pragma once

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <thread>

#include "forgemeter/lease.h"

namespace fmtest {

inline forgemeter::Deadline within(forgemeter::Duration d) {
  return forgemeter::Deadline::after(forgemeter::system_clock(), d);
}

template <typename Store>  // a LeaseStore that is also LeaseChanges
void take_and_release_wake(forgemeter::LeaseStore& holder, Store& candidate, const std::string& name) {
  using namespace std::chrono_literals;
  using forgemeter::LeaseStatus;
  const auto now = std::chrono::system_clock::now();
  const std::uint64_t before = candidate.change_mark(name);
  REQUIRE(holder.acquire(name, "holder", now, 9s, within(5s)).status == LeaseStatus::granted);
  CHECK(candidate.wait_for_change(name, before, within(5s)));  // a change of hands wakes too
  const std::uint64_t mark = candidate.change_mark(name);
  REQUIRE(candidate.acquire(name, "candidate", now, 9s, within(5s)).status == LeaseStatus::refused);
  const auto released = std::chrono::steady_clock::now();
  std::jthread releasing([&] { CHECK(holder.release(name, "holder", within(5s)).status == LeaseStatus::released); });
  CHECK(candidate.wait_for_change(name, mark, within(5s)));
  const auto took = std::chrono::steady_clock::now() - released;
  MESSAGE("woken " << std::chrono::duration<double, std::milli>(took).count() << " ms after the release");
  CHECK(took < 1s);
}

}  // namespace fmtest
