// sliding_sum.h — what was spent over the last span of time, exactly: each
// addition is kept with its instant until the span has passed it. Its size
// is bounded by the limit it is checked against (every amount is >= 1).
//
// Plain value, no lock: SecondaryLimits holds them under its mutex.
#pragma once

#include <cstdint>
#include <deque>
#include <utility>

#include "forgemeter/clock.h"

namespace forgemeter::transport_detail {

class SlidingSum {
 public:
  explicit SlidingSum(Duration span) : span_(span) {}

  // The earliest instant from `now` on at which adding `amount` keeps the
  // sum over the span at or under `limit` (`now` when it does already).
  SteadyTime earliest(SteadyTime now, std::uint64_t amount, std::uint64_t limit) {
    expire(now);
    std::uint64_t left = sum_;
    for (const auto& [at, n] : entries_) {
      if (left + amount <= limit) break;
      left -= n;
      now = at + span_;
    }
    return now;
  }
  void add(SteadyTime now, std::uint64_t amount) {
    entries_.emplace_back(now, amount);
    sum_ += amount;
  }
  bool empty(SteadyTime now) {
    expire(now);
    return entries_.empty();
  }

 private:
  void expire(SteadyTime now) {
    while (!entries_.empty() && entries_.front().first + span_ <= now) {
      sum_ -= entries_.front().second;
      entries_.pop_front();
    }
  }

  Duration span_;
  std::deque<std::pair<SteadyTime, std::uint64_t>> entries_;
  std::uint64_t sum_ = 0;
};

}  // namespace forgemeter::transport_detail
