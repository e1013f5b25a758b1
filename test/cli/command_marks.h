// Test support for `lease run` handover tests: a CMD that marks its start
// and its end in a file, the marks read back, the `lease run` of a replica
// serving /metrics with it, and the sockets a campaigning `lease run` holds
// (to know it is waiting on its store).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "forgemeter_bin.h"
#include "support/temp_files.h"

namespace fmtest {

// CMD: appends "up <ns> <owner>" when it starts and "down <ns> <owner>" when
// SIGTERM ends it (at once: `wait` is interrupted by the trap).
inline const std::string kMarkingCmd =
    "f=$1; trap 'echo \"down $(date +%s%N) $FORGEMETER_LEASE_OWNER\" >> $f; exit 0' TERM; "
    "echo \"up $(date +%s%N) $FORGEMETER_LEASE_OWNER\" >> $f; sleep 3600 & wait";

struct Mark {
  std::string kind, owner;
  std::int64_t ns = 0;
};

inline std::vector<Mark> marks(const std::string& path) {
  std::vector<Mark> out;
  std::istringstream in(read_file(path));
  Mark m;
  while (in >> m.kind >> m.ns >> m.owner) out.push_back(m);
  return out;
}

inline std::size_t ups(const std::string& path) {
  std::size_t n = 0;
  for (const auto& m : marks(path)) n += m.kind == "up";
  return n;
}

// `forgemeter lease run` of `owner` for lease `name` on `store` (TTL 3 s,
// retry 1 s) serving /metrics on `metrics_addr`, its CMD kMarkingCmd on `log`.
inline std::vector<std::string> metrics_replica(const std::string& store, const std::string& name,
                                                const std::string& owner, const std::string& metrics_addr,
                                                const std::string& log) {
  return {forgemeter_bin(), "lease", "run",   "--store", store,       "--name", name,
          "--owner",        owner,   "--ttl", "3s",      "--retry",   "1s",     "--metrics-addr",
          metrics_addr,     "--",    "sh",    "-c",      kMarkingCmd, "sh",     log};
}

// Sockets `pid` holds: a campaigning `lease run` has two once it polls (its
// store's connection and its listening session or watch).
inline int sockets(pid_t pid) {
  int n = 0;
  std::error_code ec;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    const auto target = std::filesystem::read_symlink(fd.path(), ec);
    n += !ec && target.string().rfind("socket:", 0) == 0;
  }
  return n;
}

}  // namespace fmtest
