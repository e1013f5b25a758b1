// store_arg.h — where `lease run` and `lease status` find their store, so
// that a password need not be on the command line:
//
//   --store URI         (visible in `ps` and shell history: a password in it is warned about)
//   --store-file FILE   the first line of FILE, trimmed; FILE must not be
//                       accessible by group or others (as ssh insists for a key)
//   FORGEMETER_STORE    the environment variable, when neither option is given
//
// libpq's own PGPASSWORD, PGPASSFILE (~/.pgpass) and PGSERVICE work with any
// of them. Whichever is used, its password is remembered for scrub().
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace forgemeter::cli {

struct StoreOptions {
  std::string store, store_file;
};

// Declares --store and --store-file (mutually exclusive) on `cmd`.
void add_store_options(CLI::App& cmd, StoreOptions& options);

// The store's text. Throws UsageError when no store is given, CommandError when
// --store-file cannot be read, is empty or is open to group/others. Prints a
// one-line warning on stderr when --store carries a password.
std::string resolve_store(const StoreOptions& options);

}  // namespace forgemeter::cli
