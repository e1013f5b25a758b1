// The campaign's side of a Term: written only by the campaign thread, read by
// Term from any thread (forgemeter/campaign.h). Internal to the lease room.
#pragma once

#include <algorithm>
#include <atomic>
#include <stop_token>

#include "forgemeter/campaign.h"

namespace forgemeter {

struct Term::State {
  State(const Clock& c, std::uint64_t n, UtcMillis start, SteadyTime step_down)
      : clock(&c), number(n), started(start), deadline_ns(step_down.time_since_epoch().count()) {}

  const Clock* clock;
  const std::uint64_t number;
  const UtcMillis started;
  std::stop_source stop;  // work's stop token; requested when the term ends
  std::atomic<bool> held{true};
  std::atomic<SteadyTime::rep> deadline_ns;

  SteadyTime deadline() const noexcept { return SteadyTime(Duration(deadline_ns.load(std::memory_order_acquire))); }
  bool valid() const noexcept { return held.load(std::memory_order_acquire) && clock->steady_now() < deadline(); }

  // Campaign thread only. A deadline never moves backward.
  void extend(SteadyTime step_down) noexcept {
    if (step_down > deadline()) deadline_ns.store(step_down.time_since_epoch().count(), std::memory_order_release);
  }
  // Campaign thread only: the term is over — first the gate, then work's token.
  void end() noexcept {
    held.store(false, std::memory_order_release);
    stop.request_stop();
  }
};

}  // namespace forgemeter
