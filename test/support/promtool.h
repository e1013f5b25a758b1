// promtool.h — `promtool check metrics` (Debian package prometheus) on an
// exposition text, the suite's one way to lint what a test scrapes or
// serializes:
//
//   CHECK(fmtest::promtool_check_metrics(text) == "");
//
// "" when promtool exits 0 and says nothing; otherwise "exit N: " and what it
// said. No promtool on PATH: "" and a skip (skips.h); under CI=true a failure
// (REQUIRE), since CI runs every check. promtool runs directly (no shell), the
// text on its stdin. Thread-safe.
#pragma once

#include <string>

namespace fmtest {

std::string promtool_check_metrics(const std::string& exposition);

}  // namespace fmtest
