#include "process.h"

namespace forgemeter::test {

std::string forgemeter_bin() { return FORGEMETER_BIN; }

}  // namespace forgemeter::test
