// A simulated fleet for the pacing governor: N replicas, each with its own
// PacingGovernor on one ManualClock, send the requests their demand brings
// to one simulated budget (limit L, a fixed window that refills at each
// reset); each sees only the readings of its own answers. Single-threaded
// and deterministic: time jumps from one arrival or retry to the next.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "forgemeter/testing/manual_clock.h"
#include "transport/admission/pacing_governor.h"

namespace fmtest {

using namespace std::chrono_literals;
using forgemeter::Duration;
using forgemeter::SteadyTime;
using forgemeter::UtcMillis;
namespace td = forgemeter::transport_detail;

inline const forgemeter::Lane kSweeper{"sweeper"};
constexpr std::uint64_t kInstallation = 101;

struct FleetPlan {
  std::uint64_t limit = 5000;
  Duration window = 1h;
  int replicas = 10;
  double demand = 3;            // the fleet's demand a window, in limits, spread evenly
  int windows = 2;              // simulated
  int late_replicas = 0;        // more replicas, of the same demand each, joining at half the first window
  double keep_fraction = 0.05;  // each replica's PacedLane
  double unpaced = 0;           // each replica's unpaced lane: requests a window, sent as they come
};

struct WindowTally {
  std::uint64_t spent = 0;
  std::uint64_t limited = 0;                // answers the budget refused (it was at 0)
  std::array<std::uint64_t, 4> quarters{};  // spent in each quarter of the window
};

struct FleetResult {
  std::vector<WindowTally> windows;
  std::uint64_t sent = 0;
  std::uint64_t waited = 0;  // requests not sent the instant they arrived
  Duration longest_wait{};
};

class FleetSim {
 public:
  explicit FleetSim(FleetPlan plan);
  FleetResult run();

 private:
  struct Replica {
    std::unique_ptr<td::PacingGovernor> governor;
    Duration every{};
    SteadyTime next_arrival{};
    std::deque<SteadyTime> queue;
    std::optional<SteadyTime> retry_at;
    SteadyTime next_unpaced = SteadyTime::max();
  };
  Duration demand_interval() const;
  void add_replica(SteadyTime first);
  void serve(Replica& r);
  void send(Replica& r);
  SteadyTime next_event() const;

  FleetPlan plan_;
  forgemeter::ManualClock clock_;
  SteadyTime start_;
  UtcMillis window_end_;
  std::uint64_t remaining_;
  std::size_t window_index_ = 0;
  std::vector<Replica> replicas_;
  FleetResult result_;
};

}  // namespace fmtest
