// forgemeter — the command: fleet report from logs, a command under a lease,
// metered fetch, and the proxy any client points its base URL at. Exit codes: 0 ok, 1 failure, 2 usage (and each
// command's own, in its --help).
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <curl/curl.h>
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/errors.h"
#include "cli/fetch/exit.h"
#include "cli/man_section.h"
#include "cli/program.h"
#include "cli/words.h"
#include "core/components.h"
#include "forgemeter/version.h"
#include "lease/uri/secrets.h"
#if FORGEMETER_HAS_POSTGRES
#include <libpq-fe.h>
#endif

namespace {

// `forgemeter --version`: ours, then the libraries that do the work, as curl
// prints its own.
std::string version_text() {
#if FORGEMETER_HAS_POSTGRES
  const int pq = PQlibVersion();
  return fmt::format("forgemeter {} ({}; libpq {}.{})", forgemeter::version(), curl_version(), pq / 10000, pq % 10000);
#else
  return fmt::format("forgemeter {} ({})", forgemeter::version(), curl_version());
#endif
}

int run(int argc, char** argv) {
  using namespace forgemeter::cli;
  CLI::App app{
      "forgemeter: forge HTTP metering, a proxy for any client, and leader leases for replicated services.\n"
      "Exit codes: 0 ok, 1 failure, 2 usage error; report --fail-on-exhausted 3 for a spent hour; fetch curl's\n"
      "(see forgemeter fetch --help); lease run its CMD's.",
      "forgemeter"};
  app.set_version_flag("-V,--version", version_text, "print the version (and libcurl's, libpq's) and exit");
  app.require_subcommand(1);
  Action action;
  add_report(app, action);
  add_lease(app, action);
  add_fetch(app, action);
  add_proxy(app, action);

  // A password on the command line (in --store, or a stray word of one) is
  // never echoed, not even by a parse error.
  for (int i = 1; i < argc; ++i) forgemeter::lease_uri::remember_secrets(argv[i]);
  // `forgemeter __complete WORD...`: the shell completion's candidates
  // (share/bash-completion/completions/forgemeter), from this very parser.
  if (argc >= 2 && std::string_view(argv[1]) == "__complete") {
    std::fputs(completion_candidates(app, std::vector<std::string>(argv + 2, argv + argc)).c_str(), stdout);
    return kExitOk;
  }
  // `forgemeter __man COMMAND…`: that command's section of the man page (cmake/man_page.cmake).
  if (argc >= 2 && std::string_view(argv[1]) == "__man") {
    const auto section = man_section(app, std::vector<std::string>(argv + 2, argv + argc));
    if (!section) return kExitUsage;
    std::fputs(section->c_str(), stdout);
    return kExitOk;
  }
  Program program;
  program.run = [&] {
    // The parser has its copies: a password in the arguments no longer shows in
    // `ps` (it did from exec to here: docs/cli.md says which ways are safe).
    for (int i = 1; i < argc; ++i) forgemeter::lease_uri::scrub_in_place(argv[i]);
    if (!action) throw UsageError("nothing to do");
    return action();
  };
  program.redact = [](std::string_view line) { return forgemeter::lease_uri::scrub(line); };
  program.write_error_exit = kExitWriteError;  // fetch said its own when the answer could not be written
  return run_program(app, argc, argv, program);
}

}  // namespace

int main(int argc, char** argv) { return forgemeter::cli::run_main("forgemeter", run, argc, argv); }
