// status.h — `forgemeter lease status`: who holds a lease now.
#pragma once

#include "cli/command.h"

namespace forgemeter::cli {

void add_lease_status(CLI::App& lease, Action& action);

}  // namespace forgemeter::cli
