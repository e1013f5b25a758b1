// store_options.h — --store and --store-file on a lease command
// (lease/uri/store_file.h says where a store comes from), and the store's
// refusals as the command's errors.
#pragma once

#include <functional>
#include <string>

#include "lease/uri/store_file.h"

namespace CLI {
class App;
}

namespace forgemeter::cli {

using StoreOptions = lease_uri::StoreSource;

// Declares --store and --store-file (mutually exclusive) on `cmd`.
void add_store_options(CLI::App& cmd, StoreOptions& options);

// lease_uri::resolve_store(), and a one-line warning on stderr when --store
// carries a password.
std::string store_text(const StoreOptions& options);

// Runs `action`; a lease_uri::StoreError it throws becomes UsageError (no
// store given: exit 2) or CommandError (the store refuses: exit 1).
int with_store_errors(const std::function<int()>& action);

}  // namespace forgemeter::cli
