// serve_command.h — `forgemeter lease serve`: campaigns for leases and
// answers, over HTTP, whether this replica leads and for how long a caller
// may act on it (src/elector, docs/elector.md).
#pragma once

#include "cli/command.h"

namespace forgemeter::cli {

// --exit-on-loss: the first lost term (refused, or no renewal proven in
// time) ends `lease serve` with this code (sysexits' EX_TEMPFAIL: run again).
inline constexpr int kExitLeaseLost = 75;

void add_lease_serve(CLI::App& lease, Action& action);

}  // namespace forgemeter::cli
