// fleet_log.h — the meter lines each replica of the demo logged, as they come.
//
// Each replica's Meter writes into its own log here (sink()); the demo reads
// them to print each hour as it finishes (await_hour()), to report, and to
// write the replicas' log files.
//
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "forgemeter/meter.h"

namespace forgemeter::demo {

class FleetLog {
 public:
  explicit FleetLog(std::size_t replicas) : logs_(replicas) {}

  // A Meter's sink that appends to replica `replica`'s log.
  LineSink sink(std::size_t replica);
  std::vector<std::string> lines(std::size_t replica) const;

  // Blocks until every replica's meter has written the hour ending
  // `hour_ending` (a meter writes an hour's lines at once, the answers line
  // last, when its first event of a later hour arrives), or `timeout` of real
  // time passed; false then. A replica with no traffic in the hour would
  // never write it: in the demo every replica sends requests every hour.
  bool await_hour(std::chrono::sys_seconds hour_ending, std::chrono::milliseconds timeout) const;

 private:
  struct Log {
    std::vector<std::string> lines;
    std::chrono::sys_seconds written_through{};  // the latest hour ending written whole
  };
  void append(std::size_t replica, std::string_view line);

  mutable std::mutex mu_;
  mutable std::condition_variable written_;
  std::vector<Log> logs_;
};

}  // namespace forgemeter::demo
