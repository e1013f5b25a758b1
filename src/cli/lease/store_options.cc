#include "cli/lease/store_options.h"

#include <cstdio>

#include <CLI/CLI.hpp>

#include "cli/errors.h"
#include "lease/uri/passwords.h"
#include "lease/uri/store_error.h"

namespace forgemeter::cli {

void add_store_options(CLI::App& cmd, StoreOptions& o) {
  auto* store = cmd.add_option("--store", o.store,
                               "memory: (this process only), a PostgreSQL conninfo / postgresql:// URI, or "
                               "etcd://HOST:PORT[,HOST:PORT...]/PREFIX (etcds:// for TLS) "
                               "(default: $FORGEMETER_STORE; keep passwords out of it: --store-file, PGPASSFILE)");
  auto* file = cmd.add_option("--store-file", o.store_file,
                              "read the store from the first line of this file (mode 600 or stricter)");
  store->excludes(file);
}

std::string store_text(const StoreOptions& o) {
  std::string store = lease_uri::resolve_store(o);
  if (!o.store.empty() && !lease_uri::store_passwords(o.store).empty())
    std::fputs(
        "forgemeter: warning: --store carries a password, visible to other users in `ps` until forgemeter "
        "masks it and kept in shell history; use FORGEMETER_STORE, --store-file FILE or PGPASSFILE (~/.pgpass, "
        "PostgreSQL) instead\n",
        stderr);
  return store;
}

int with_store_errors(const std::function<int()>& action) {
  try {
    return action();
  } catch (const lease_uri::StoreError& e) {
    if (e.kind == lease_uri::StoreError::Kind::not_given) throw UsageError(e.what());
    throw CommandError(e.what());
  }
}

}  // namespace forgemeter::cli
