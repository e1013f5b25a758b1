#include "process.h"

namespace fmtest {

std::string forgemeter_bin() { return FORGEMETER_BIN; }

}  // namespace fmtest
