#include "cli/store_arg.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/errors.h"
#include "cli/secrets.h"

namespace forgemeter::cli {

namespace {

std::string trimmed(std::string s) {
  const char* ws = " \t\r\n\f\v";
  s.erase(0, s.find_first_not_of(ws));
  s.erase(s.find_last_not_of(ws) + 1);
  return s;
}

std::string read_store_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw CommandError(fmt::format("--store-file {}: {}", path, std::strerror(errno)));
  if ((st.st_mode & 077) != 0)
    throw CommandError(
        fmt::format("--store-file {}: permissions {:04o} are too open: it may hold a password, so it must "
                    "not be accessible by group or others; run: chmod 600 {}",
                    path, st.st_mode & 07777, path));
  std::ifstream in(path);
  if (!in.is_open()) throw CommandError(fmt::format("--store-file {}: cannot open it: {}", path, std::strerror(errno)));
  std::string line;
  std::getline(in, line);
  line = trimmed(line);
  if (line.empty())
    throw CommandError(fmt::format(
        "--store-file {}: its first line is empty; put the store (a conninfo or postgresql:// URI) there", path));
  return line;
}

}  // namespace

void add_store_options(CLI::App& cmd, StoreOptions& o) {
  auto* store = cmd.add_option("--store", o.store,
                               "memory: (this process only), a PostgreSQL conninfo / postgresql:// URI, or "
                               "etcd://HOST:PORT[,HOST:PORT...]/PREFIX (etcds:// for TLS) "
                               "(default: $FORGEMETER_STORE; keep passwords out of it: --store-file, PGPASSFILE)");
  auto* file = cmd.add_option("--store-file", o.store_file,
                              "read the store from the first line of this file (mode 600 or stricter)");
  store->excludes(file);
}

std::string resolve_store(const StoreOptions& o) {
  std::string store;
  if (!o.store.empty()) {
    store = o.store;
    remember_secrets(store);
    if (!store_passwords(store).empty())
      std::fputs(
          "forgemeter: warning: --store carries a password, visible to other users in `ps` and kept in shell "
          "history; use FORGEMETER_STORE, --store-file FILE or PGPASSFILE (~/.pgpass, PostgreSQL) instead\n",
          stderr);
    return store;
  }
  if (!o.store_file.empty()) {
    store = read_store_file(o.store_file);
  } else if (const char* env = std::getenv("FORGEMETER_STORE"); env != nullptr && *env != '\0') {
    store = trimmed(env);
  } else {
    throw UsageError("no store given: use --store URI, --store-file FILE or the environment variable FORGEMETER_STORE");
  }
  remember_secrets(store);
  return store;
}

}  // namespace forgemeter::cli
