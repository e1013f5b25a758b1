// forgemeter_bin.h — where the `forgemeter` binary under test is, for the
// end-to-end tests, which run it with support/process.h.
#pragma once

#include <string>

#include "support/process.h"
#include "support/temp_files.h"

namespace fmtest {

// The forgemeter binary under test (compile definition FORGEMETER_BIN).
std::string forgemeter_bin();

}  // namespace fmtest
