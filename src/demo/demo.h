// demo.h — the incident this project exists for, replayed in seconds on the
// loopback forge and the memory store: hour 1 every replica sweeps and the
// installation's budget runs out; in hour 2 the sweep's lane is elected; in
// hour 3 every replica sweeps again, paced; in hour 4 through a proxy each.
//
// run_demo() prints as it goes (stdout; stderr when --html or --forge-counts
// is '-', which then gets stdout to itself): each hour's fleet line as the hour
// finishes, then the report and its comparison with the forge's own counts;
// it returns 0, throws DemoFailed when the report and the forge differ or the
// elected or the paced hour still ran out, core_detail::WriteError when a file cannot be written.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

namespace forgemeter::demo {

struct DemoArgs {
  int replicas = 10, hours = 4;
  double speed = 600;
  std::string html;          // a file, or "-": stdout
  std::string logs;          // a directory: each replica's log as <logs>/<replica>.log
  std::string forge_counts;  // a file (or "-"): the forge's own counts per period, JSON
  // A replica whose log is lost before the report (its lines left out): the
  // report then falls short of the forge, which the demo must say.
  std::optional<int> lose_log;
  std::string metrics_addr;  // HOST:PORT: serve the fleet's meters on /metrics while the demo runs
  int linger = 0;            // with metrics_addr: seconds to go on serving once the demo has ended
};

struct DemoFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int run_demo(const DemoArgs& args);

}  // namespace forgemeter::demo
