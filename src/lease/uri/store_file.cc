#include "lease/uri/store_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "core/ascii.h"
#include "core/option_file.h"
#include "lease/uri/secrets.h"
#include "lease/uri/store_error.h"

namespace forgemeter::lease_uri {

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a named pipe";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

[[noreturn]] void refuse(const std::string& why) { throw StoreError(StoreError::Kind::refused, why); }

std::string read_store_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) refuse(fmt::format("--store-file {}: {}", path, std::strerror(errno)));
  if (!S_ISREG(st.st_mode))  // its permissions say nothing of a secret: what it is says what is wrong
    refuse(fmt::format("--store-file {}: it is {}, not a file; give the file whose first line is the store", path,
                       kind_of(st.st_mode)));
  if (const auto why = core_detail::too_open(st.st_mode, path, "a password"))
    refuse(fmt::format("--store-file {}: {}", path, *why));
  std::ifstream in(path);
  if (!in.is_open()) refuse(fmt::format("--store-file {}: cannot open it: {}", path, std::strerror(errno)));
  std::string line;
  std::getline(in, line);
  line = std::string(core_detail::trimmed(line, true));
  if (line.empty())
    refuse(fmt::format(
        "--store-file {}: its first line is empty; put the store (a conninfo or postgresql:// URI) there", path));
  return line;
}

}  // namespace

std::string resolve_store(const StoreSource& source) {
  std::string store;
  if (!source.store.empty()) {
    store = source.store;
  } else if (!source.store_file.empty()) {
    store = read_store_file(source.store_file);
  } else if (const char* env = std::getenv("FORGEMETER_STORE"); env != nullptr && *env != '\0') {
    store = std::string(core_detail::trimmed(env, true));
  } else {
    throw StoreError(StoreError::Kind::not_given,
                     "no store given: use --store URI, --store-file FILE or the environment variable FORGEMETER_STORE");
  }
  remember_secrets(store);
  return store;
}

}  // namespace forgemeter::lease_uri
