// lease_name.h — the NAME every lease command takes (run, status, resign):
// one rule for all three, the lane rule (forgemeter/lane.h), so a name `lease
// run` refuses is refused by `lease status` and `lease resign` too (exit 2),
// never answered "free" for a lease no `lease run` could ever hold.
#pragma once

#include <CLI/CLI.hpp>

namespace forgemeter::cli {

// A CLI11 check for a lease command's NAME: refuses (a usage error, exit 2)
// what Lane::check() refuses, saying why.
CLI::Validator lease_name_rule();

}  // namespace forgemeter::cli
