// Every test binary's main: doctest's, refusing skip variables under CI and
// turning a skipped check into ctest's "Skipped" outcome (support/skips.h).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "support/skips.h"

int main(int argc, char** argv) {
  if (const std::string bad = fmtest::ci_forbidden_variables(); !bad.empty()) {
    std::fprintf(stderr, "%s\n", bad.c_str());
    return 1;
  }
  doctest::Context context(argc, argv);
  const int rc = context.run();
  if (context.shouldExit() || rc != 0) return rc;
  if (const std::string why = fmtest::skipped_reasons(); !why.empty()) {
    std::fprintf(stderr, "SKIPPED (not a pass; ctest shows it as Skipped):\n%s", why.c_str());
    return fmtest::kSkipExit;
  }
  return 0;
}
