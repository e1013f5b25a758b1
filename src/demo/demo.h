// demo.h — the incident this project exists for, replayed in seconds on the
// loopback forge and the memory store: hour 1 every replica sweeps and the
// installation's budget runs out; from hour 2 the sweep's lane is elected.
//
// run_demo() prints as it goes (stdout) and returns 0; it throws DemoFailed
// when the fleet report and the forge's own counts differ or the elected hour
// still ran out, report::Failure when the page cannot be written.
#pragma once

#include <stdexcept>
#include <string>

namespace forgemeter::demo {

struct DemoArgs {
  int replicas = 10, hours = 2;
  double speed = 600;
  std::string html;
};

struct DemoFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int run_demo(const DemoArgs& args);

}  // namespace forgemeter::demo
