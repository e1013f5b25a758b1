#include "forgemeter_bin.h"

namespace fmtest {

std::string forgemeter_bin() { return FORGEMETER_BIN; }

}  // namespace fmtest
