// sliding_sum.h — what was spent over the last span of time, exactly: each
// addition is kept with its instant until the span has passed it. Its size
// is bounded by the limit it is checked against with earliest() before
// each add() (every amount is >= 1). An empty one holds no allocation (a
// GitHub App keeps four per installation; bench/installations_heap_bench.cc):
// the additions are a vector read from `head_`, its expired front dropped
// once it is half the vector.
//
// Plain value, no lock: SecondaryLimits holds them under its mutex.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

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
    for (std::size_t i = head_; i < entries_.size() && left + amount > limit; ++i) {
      left -= entries_[i].second;
      now = entries_[i].first + span_;
    }
    return now;
  }
  void add(SteadyTime now, std::uint64_t amount) {
    entries_.emplace_back(now, amount);
    sum_ += amount;
  }
  bool empty(SteadyTime now) {
    expire(now);
    return head_ == entries_.size();
  }

 private:
  void expire(SteadyTime now) {
    while (head_ < entries_.size() && entries_[head_].first + span_ <= now) sum_ -= entries_[head_++].second;
    if (head_ == entries_.size()) {
      entries_ = {};  // an idle window holds nothing
      head_ = 0;
    } else if (head_ * 2 >= entries_.size()) {  // moves no more entries than expired since the last move
      entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

  Duration span_;
  std::vector<std::pair<SteadyTime, std::uint64_t>> entries_;  // [head_, end) are within the span
  std::size_t head_ = 0;
  std::uint64_t sum_ = 0;
};

}  // namespace forgemeter::transport_detail
