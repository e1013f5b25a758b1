// resign.h — `forgemeter lease resign`: ask a lease's holder to step down.
#pragma once

#include "cli/command.h"

namespace forgemeter::cli {

void add_lease_resign(CLI::App& lease, Action& action);

}  // namespace forgemeter::cli
