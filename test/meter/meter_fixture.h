// Shared by the meter tests: a Meter on a ManualClock whose sink keeps lines.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "forgemeter/lines.h"
#include "forgemeter/meter.h"
#include "forgemeter/testing/manual_clock.h"

namespace fmtest {

using namespace std::chrono;
using forgemeter::UtcMillis;
using LineList = std::vector<std::string>;

inline const std::string D = " \u2014 ";  // the dash between a line's head and its entries

// 2026-09-30 at hh:mm:ss UTC (hours past 23 run into the next days).
inline UtcMillis at(int hh, int mm = 0, int ss = 0, int ms = 0) {
  return UtcMillis{sys_days{2026y / 9 / 30} + hours{hh} + minutes{mm} + seconds{ss} + milliseconds{ms}};
}

// Lines a sink received, thread-safe.
struct Lines {
  mutable std::mutex mu;
  std::vector<std::string> got;
  forgemeter::LineSink sink() {
    return [this](std::string_view l) {
      std::lock_guard lock(mu);
      got.emplace_back(l);
    };
  }
  std::vector<std::string> take() {
    std::lock_guard lock(mu);
    return std::exchange(got, {});
  }
};

// A Meter started at `start` with a capturing sink.
struct Rig {
  explicit Rig(UtcMillis start, std::size_t max_hosts = 64)
      : clock(start),
        meter(std::make_unique<forgemeter::Meter>(
            forgemeter::MeterOptions{.clock = &clock, .sink = lines.sink(), .max_hosts = max_hosts})) {}
  forgemeter::ManualClock clock;
  Lines lines;
  std::unique_ptr<forgemeter::Meter> meter;

  void request(std::string_view host, forgemeter::Lane lane, UtcMillis t, std::uint64_t installation = 0,
               forgemeter::Api api = forgemeter::Api::rest) {
    meter->record_request({.host = host, .api = api, .installation = installation, .lane = lane}, t);
  }
  std::vector<std::string> take() { return lines.take(); }
};

}  // namespace fmtest
