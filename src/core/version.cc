#include "forgemeter/version.h"

namespace forgemeter {

const char* version() noexcept { return FORGEMETER_VERSION_STRING; }

}  // namespace forgemeter
