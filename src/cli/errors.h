// errors.h — how a subcommand says it failed, and which exit code that is.
//
//   exit 0  the command did what was asked
//   exit 1  CommandError: it could not (a file, a store, a server, the child said no)
//   exit 2  UsageError: the command line is wrong; nothing was done
//
// Every message is one line for stderr that says what to do next.
#pragma once

#include <stdexcept>
#include <string>

namespace forgemeter::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

struct CommandError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace forgemeter::cli
