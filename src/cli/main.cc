// forgemeter — the command: fleet report from logs, a command under a lease,
// and metered fetch. Exit codes: 0 ok, 1 failure, 2 usage (and each
// command's own, in its --help).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include <curl/curl.h>
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/errors.h"
#include "cli/fetch/exit.h"
#include "cli/man_section.h"
#include "cli/parse_error.h"
#include "cli/words.h"
#include "core/components.h"
#include "core/output.h"
#include "core/terminal_text.h"
#include "forgemeter/version.h"
#include "lease/uri/secrets.h"
#if FORGEMETER_HAS_POSTGRES
#include <libpq-fe.h>
#endif

namespace {

// The subcommand path the parser reached, for "see 'forgemeter lease run --help'".
std::string help_hint(const CLI::App& root) {
  std::string path = "forgemeter";
  const CLI::App* at = &root;
  while (at != nullptr) {
    auto subs = at->get_subcommands();
    if (subs.empty()) break;
    at = subs.front();
    path += " " + at->get_name();
  }
  return path + " --help";
}

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

// As GNU's close_stdout: output that could not be written (a full disk, a
// pipe closed while SIGPIPE is ignored) is a failure said on stderr, never a
// silent 0. The error of the failed flush, or "a write failed" for an
// earlier one whose errno is gone.
std::optional<std::string> stdout_error() {
  std::cout.flush();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  if (flushed && !std::ferror(stdout) && std::cout.good()) return std::nullopt;
  return !flushed && errno != 0 ? std::strerror(errno) : "a write failed";
}

int run(int argc, char** argv) {
  using namespace forgemeter::cli;
  using forgemeter::core_detail::terminal_text;
  using forgemeter::lease_uri::remember_secrets;
  using forgemeter::lease_uri::scrub;
  CLI::App app{
      "forgemeter: forge HTTP metering and leader leases for replicated services.\n"
      "Exit codes: 0 ok, 1 failure, 2 usage error; report --fail-on-exhausted 3 for a spent hour; fetch curl's\n"
      "(see forgemeter fetch --help); lease run its CMD's.",
      "forgemeter"};
  app.set_version_flag("-V,--version", version_text, "print the version (and libcurl's, libpq's) and exit");
  app.require_subcommand(1);
  Action action;
  add_report(app, action);
  add_lease(app, action);
  add_fetch(app, action);

  // A password on the command line (in --store, or a stray word of one) is
  // never echoed, not even by a parse error; an error quoting input (a lease
  // name, a path) reaches the terminal without its control bytes.
  const auto complain = [](const std::string& line) { std::cerr << terminal_text(scrub(line)) << '\n'; };
  for (int i = 1; i < argc; ++i) remember_secrets(argv[i]);
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
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    std::ostringstream out;
    const int code = app.exit(e, out, std::cerr);
    try {
      forgemeter::core_detail::write_stdout(out.str());
    } catch (const std::exception& failed) {
      complain(fmt::format("forgemeter: {}", failed.what()));
      return kExitFailure;
    }
    return code;
  } catch (const CLI::ParseError& e) {
    // An unknown word (or a missing command) says so in the user's terms,
    // with the nearest spelling; the parser's text serves for the rest.
    const bool words =
        dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr || dynamic_cast<const CLI::RequiredError*>(&e) != nullptr;
    const auto said = words ? unknown_word_message(app) : missing_value_message(app, e);
    if (said && said->find("did you mean") != std::string::npos)
      complain("forgemeter: " + *said);
    else
      complain(fmt::format("forgemeter: {}; see '{}'", said.value_or(e.what()), help_hint(app)));
    return kExitUsage;
  }
  // The parser has its copies: a password in the arguments no longer shows in
  // `ps` (it did from exec to here: docs/cli.md says which ways are safe).
  for (int i = 1; i < argc; ++i) forgemeter::lease_uri::scrub_in_place(argv[i]);
  if (!action) {
    std::cerr << fmt::format("forgemeter: nothing to do; see '{}'\n", help_hint(app));
    return kExitUsage;
  }
  try {
    const int code = action();
    // fetch said its own (curl's 23) when the answer could not be written.
    if (const auto why = stdout_error(); why && code != kExitWriteError) {
      complain(fmt::format("forgemeter: cannot write to stdout: {}", *why));
      return code == kExitOk ? kExitFailure : code;
    }
    return code;
  } catch (const UsageError& e) {
    complain(fmt::format("forgemeter: {}; see '{}'", e.what(), help_hint(app)));
    return kExitUsage;
  } catch (const std::exception& e) {
    complain(fmt::format("forgemeter: {}", e.what()));
    return kExitFailure;
  }
}

}  // namespace

// What run() lets escape (an allocation failing while an error is printed)
// ends with a word and exit 1, not abort().
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fputs("forgemeter: out of memory\n", stderr);
  } catch (...) {
    std::fputs("forgemeter: internal error\n", stderr);
  }
  return forgemeter::cli::kExitFailure;
}
