// Subcommands not written yet.
#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/errors.h"

namespace forgemeter::cli {

void add_fetch(CLI::App&, Action&) {}

}  // namespace forgemeter::cli
