#include "support/promtool.h"

#include <doctest/doctest.h>

#include <cstdlib>

#include "support/process.h"
#include "support/skips.h"

namespace fmtest {

std::string promtool_check_metrics(const std::string& exposition) {
  const std::string promtool = find_on_path("promtool");
  if (promtool.empty()) {
    const char* ci = std::getenv("CI");
    REQUIRE_MESSAGE((ci == nullptr || std::string(ci) != "true"),
                    "CI=true: no promtool on PATH (Debian package prometheus); CI runs every test");
    skipped("no promtool on PATH (Debian package prometheus): an exposition was not checked");
    return "";
  }
  const ProcessResult r = run_process({promtool, "check", "metrics"}, {.stdin_data = exposition});
  const std::string said = r.out + r.err;
  if (r.exit_code == 0 && said.empty()) return "";
  return "exit " + std::to_string(r.exit_code) + ": " + said;
}

}  // namespace fmtest
