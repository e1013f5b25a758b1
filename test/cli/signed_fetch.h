// signed_fetch.h — `forgemeter fetch` as installation 7 (`--bearer-file` with
// `inst-7`, `--installation 7`) against a loopback forge of its own, with a
// scratch directory: what the --etag-* and --cache tests share.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "fetch_support.h"
#include "forgemeter_bin.h"
#include "testforge/forge.h"

namespace fmtest {

struct SignedFetch {
  static constexpr std::uint64_t kInstallation = 7;
  forgemeter::testforge::Forge forge;
  TempDir dir;
  std::string token = dir.file("token");
  SignedFetch() {
    write_file(token, "inst-7\n");
    ::chmod(token.c_str(), 0600);  // as a user keeps a token: no warning about who may read it
  }

  std::string url(const std::string& path) const { return forge.url("api.forge.test", path); }
  // The meter's and the ground truth's spelling of api.forge.test.
  std::string host() const { return "api.forge.test:" + std::to_string(forge.port()); }
  ProcessResult fetch(std::initializer_list<std::string> more) const {
    std::vector<std::string> args = fetch_args(forge);
    args.insert(args.end(), {"--bearer-file", token, "--installation", std::to_string(kInstallation)});
    args.insert(args.end(), more);
    return run_process(args);
  }
  // Requests the forge charged the installation's core bucket.
  std::uint64_t charged() { return 5000 - forge.budgets().lowest_remaining(kInstallation, "core").value_or(5000); }
};

}  // namespace fmtest
