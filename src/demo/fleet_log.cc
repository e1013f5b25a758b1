#include "demo/fleet_log.h"

#include <algorithm>
#include <variant>

#include "forgemeter/lines.h"

namespace forgemeter::demo {

LineSink FleetLog::sink(std::size_t replica) {
  return [this, replica](std::string_view line) { append(replica, line); };
}

void FleetLog::append(std::size_t replica, std::string_view line) {
  const LineScan scan = scan_line(line);
  std::lock_guard lock(mu_);
  Log& log = logs_.at(replica);
  log.lines.emplace_back(line);
  if (scan.kind != LineScan::Kind::line) return;
  // The answers line ends an hour's lines; any line of a later hour means the earlier hours are written.
  const auto hour = std::visit([](const auto& l) { return l.hour_ending; }, scan.line);
  const bool last = std::holds_alternative<AnswersLine>(scan.line);
  log.written_through = std::max(log.written_through, last ? hour : hour - std::chrono::hours(1));
  written_.notify_all();
}

std::vector<std::string> FleetLog::lines(std::size_t replica) const {
  std::lock_guard lock(mu_);
  return logs_.at(replica).lines;
}

bool FleetLog::await_hour(std::chrono::sys_seconds hour_ending, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  return written_.wait_for(lock, timeout, [&] {
    return std::all_of(logs_.begin(), logs_.end(), [&](const Log& l) { return l.written_through >= hour_ending; });
  });
}

}  // namespace forgemeter::demo
