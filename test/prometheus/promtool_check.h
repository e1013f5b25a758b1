// promtool check metrics (Debian package prometheus) on an exposition, for the
// collectables' tests: "" when clean; without promtool the check is Skipped
// (support/skips.h), a failure under CI=true.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "support/process.h"
#include "support/skips.h"

namespace fmtest {

inline std::string promtool_check(const std::string& text) {
  if (run_process({"/bin/sh", "-c", "command -v promtool"}).exit_code != 0) {
    const char* ci = std::getenv("CI");
    REQUIRE_MESSAGE((ci == nullptr || std::string(ci) != "true"), "CI=true: no promtool on PATH");
    skipped("no promtool on PATH (Debian package prometheus): the exposition was not checked");
    return "";
  }
  const auto r = run_process({"/bin/sh", "-c", "promtool check metrics"}, {.stdin_data = text});
  return r.exit_code == 0 ? std::string() : "exit " + std::to_string(r.exit_code) + ": " + r.out + r.err;
}

}  // namespace fmtest
