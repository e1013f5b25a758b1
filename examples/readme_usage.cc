// The README's usage example, compiled and run so it stays true. It sends
// through a metered Transport to the loopback forge (src/testforge), which
// stands in for api.github.com here, and flushes the Meter at exit.
//
//   build/<dir>/examples/example_readme_usage
#include <forgemeter/meter.h>
#include <forgemeter/transport.h>

#include <cstdio>
#include <string>

#include "testforge/forge.h"

int main() {
  forgemeter::testforge::Forge forge;  // a real HTTP server on 127.0.0.1
  const std::string token = "inst-101";

  // --- as in the README -------------------------------------------------------
  forgemeter::Meter meter;  // hourly lines go to stderr by default
  forgemeter::Transport transport({.meter = &meter, .resolve = forge.resolve()});

  auto sweep_once = [&] {
    forgemeter::LaneScope lane{forgemeter::Lane{"merge-gate-sweeper"}};  // tags this thread's requests
    forgemeter::Request req{.url = forge.url("api.forge.test", "/repos/o/r/pulls/7"),
                            .installation = 101, .bearer = token};
    forgemeter::Response res = transport.perform(req);  // a failed exchange is a value
    if (res.error) std::fprintf(stderr, "%s\n", res.error.message.c_str());  // counted either way
    return res.status;
  };
  // -----------------------------------------------------------------------------

  int status = 0;
  for (int i = 0; i < 3; ++i) status = sweep_once();
  std::printf("last status %d; the meter's lines follow on stderr at exit\n", status);
  return status == 200 ? 0 : 1;
}
