// store_file.h — where `lease run` and `lease status` find their store, so
// that a password need not be on the command line:
//
//   --store URI         (in shell history, and in `ps` until main() masks it
//                       (secrets.h: scrub_in_place): the command warns when
//                       it carries a password, passwords.h)
//   --store-file FILE   the first line of FILE, trimmed; FILE must not be
//                       accessible by group or others (as ssh insists for a key)
//   FORGEMETER_STORE    the environment variable, when neither option is given
//
// libpq's own PGPASSWORD, PGPASSFILE (~/.pgpass) and PGSERVICE work with any
// of them. Whichever is used, its password is remembered for scrub().
#pragma once

#include <string>

namespace forgemeter::lease_uri {

struct StoreSource {
  std::string store, store_file;  // --store, --store-file (at most one is set)
};

// The store's text. Throws StoreError: not_given when no store is given,
// refused when --store-file cannot be read, is no regular file (a directory,
// a device: it says which), is empty or is open to group/others.
std::string resolve_store(const StoreSource& source);

}  // namespace forgemeter::lease_uri
