// A fleet of replicas on the loopback forge, each a Transport with a Meter of
// its own, pacing one lane on one installation's budget and knowing nothing
// of the others, spreading one budget to its reset in real (short) time. Each
// replica's demand is spread evenly (its first request offset by its index),
// performed by a thread of its own; what waits is the governor's doing. At
// the end every thread is stopped (a request waiting for its pace is
// cancelled) and joined.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "forgemeter/meter.h"
#include "forgemeter/transport.h"
#include "testforge/forge.h"

namespace fmtest {

namespace tf = forgemeter::testforge;

inline const forgemeter::Lane kPacedLane{"sweeper"};
inline const forgemeter::Lane kUnpacedLane{"users"};

struct FleetSpec {
  std::uint64_t installation = 0;
  int replicas = 10;
  double demand = 3;   // the fleet's paced demand a window, in limits
  int late = 0;        // more replicas (same demand each) joining at half the first window
  double unpaced = 0;  // each replica's unpaced lane's demand a window, in requests (0: none)
  double keep = 0.05;  // the PacedLane's keep_fraction
};

// What one lane of the whole fleet saw.
struct LaneTally {
  std::uint64_t ok = 0;
  std::uint64_t limited = 0;   // answered with the primary budget spent (budget_exhausted)
  std::uint64_t other = 0;     // any other failure but the final cancellation
  std::uint64_t paced_ms = 0;  // waited for the governor, per the meters' lanes lines
  std::uint64_t held_ms = 0;   // waited for a secondary limit, the same
};

class PacedFleet {
 public:
  // Starts at `start` (wall time) and stops at `end`; the budget's limit is `limit` a window.
  PacedFleet(tf::Forge& forge, FleetSpec spec, std::uint64_t limit, forgemeter::UtcMillis start,
             std::chrono::milliseconds window, forgemeter::UtcMillis end);
  ~PacedFleet();
  void join();  // waits for the end (and stops every thread then)

  LaneTally tally(forgemeter::Lane lane) const;

 private:
  struct Replica;
  void run(Replica& r, forgemeter::Lane lane, std::chrono::nanoseconds every, forgemeter::UtcMillis first,
           std::stop_token stop);

  tf::Forge& forge_;
  FleetSpec spec_;
  forgemeter::UtcMillis end_;
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::vector<std::jthread> threads_;
};

// The next instant at which a window of length `window` starts (the forge's
// windows are aligned on the epoch), at least `lead` from now.
forgemeter::UtcMillis next_window_start(std::chrono::milliseconds window, std::chrono::milliseconds lead);

}  // namespace fmtest
