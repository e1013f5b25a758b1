// Skipped checks that cannot be mistaken for passes.
//
// A test that does not run its check on purpose (FORGEMETER_SKIP_PG=1, no
// browser with FORGEMETER_SKIP_BROWSER=1, a workload shrunk by
// FORGEMETER_MIXED_REQUESTS) calls skipped(); when every test of the binary
// otherwise passed, the binary exits with kSkipExit, which ctest reports as
// "Skipped" (SKIP_RETURN_CODE), so the summary shows it. Under CI=true any of
// those variables is an error before a test runs. Thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace fmtest {

inline constexpr int kSkipExit = 77;

void skipped(std::string_view why);
// What was skipped, one reason per line ("" when nothing was).
std::string skipped_reasons();
// Under CI=true: the skip or shrink variables that are set, as an error
// message ("" when none is, or when not under CI).
std::string ci_forbidden_variables();

}  // namespace fmtest
