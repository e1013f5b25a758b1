// command.h — one function per subcommand registers it on the root App.
//
// Each add_*() declares the subcommand's options and sets `action` (through
// the subcommand's callback) to the code that runs once parsing succeeded.
// The action returns the process's exit code or throws CommandError/UsageError.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace forgemeter::cli {

using Action = std::function<int()>;

void add_report(CLI::App& root, Action& action);
void add_lease(CLI::App& root, Action& action);
void add_fetch(CLI::App& root, Action& action);
void add_proxy(CLI::App& root, Action& action);

}  // namespace forgemeter::cli
