// process.h — the end-to-end tests' view of child processes: the generic
// helpers of support/process.h plus where the `forgemeter` binary under test is.
#pragma once

#include <string>

#include "support/process.h"

namespace fmtest {

// The forgemeter binary under test (compile definition FORGEMETER_BIN).
std::string forgemeter_bin();

}  // namespace fmtest
