#include "cli/program.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <sstream>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/errors.h"
#include "cli/parse_error.h"
#include "cli/words.h"
#include "core/output.h"
#include "core/terminal_text.h"

namespace forgemeter::cli {

namespace {

// The error of the failed flush, or "a write failed" for an earlier one
// whose errno is gone; nullopt when everything written reached stdout.
std::optional<std::string> stdout_error() {
  std::cout.flush();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  if (flushed && !std::ferror(stdout) && std::cout.good()) return std::nullopt;
  return !flushed && errno != 0 ? std::strerror(errno) : "a write failed";
}

class Runner {
 public:
  Runner(CLI::App& app, const Program& p) : app_(app), p_(p) {}

  // One line on stderr: "PROGRAM: what", redacted, then escaped.
  void say(std::string_view what) const {
    std::string line = fmt::format("{}: {}", app_.get_name(), what);
    if (p_.redact) line = p_.redact(line);
    std::cerr << core_detail::terminal_text(line) << '\n';
  }

  // "PROGRAM: what; see 'PROGRAM COMMAND --help'", exit 2.
  int usage(std::string_view what) const {
    say(fmt::format("{}; see '{} --help'", what, reached_command(app_)));
    return kExitUsage;
  }

  // --help, --version: the text written, or exit 1 when stdout takes none.
  int succeeded(const CLI::Success& e) const {
    std::ostringstream out;
    const int code = app_.exit(e, out, std::cerr);
    try {
      core_detail::write_stdout(out.str());
    } catch (const std::exception& failed) {
      say(failed.what());
      return kExitFailure;
    }
    return code;
  }

  // An unknown word (or a missing command) said in the user's terms, with
  // the nearest spelling when there is one; the parser's text for the rest.
  int parse_failed(const CLI::ParseError& e) const {
    const bool word =
        dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr || dynamic_cast<const CLI::RequiredError*>(&e) != nullptr;
    std::optional<WordError> said = word ? unknown_word(app_) : std::nullopt;
    if (!word)
      if (auto missing = missing_value_message(app_, e)) said = WordError{std::move(*missing), std::nullopt};
    if (said && said->suggestion) {
      say(said->text());
      return kExitUsage;
    }
    return usage(said ? said->what : std::string(e.what()));
  }

  // The work's exit code, unless stdout could not take its output.
  int ran(int code) const {
    if (code == p_.write_error_exit) return code;  // it said so itself
    if (const auto why = stdout_error()) {
      say(fmt::format("cannot write to stdout: {}", *why));
      return code == kExitOk ? kExitFailure : code;
    }
    return code;
  }

  int run(int argc, char** argv) const {
    try {
      app_.parse(argc, argv);
      if (p_.check) p_.check();
    } catch (const CLI::Success& e) {
      return succeeded(e);
    } catch (const CLI::ParseError& e) {
      return parse_failed(e);
    }
    try {
      return ran(p_.run());
    } catch (const UsageError& e) {
      return usage(e.what());
    } catch (const std::exception& e) {
      say(e.what());
      return kExitFailure;
    }
  }

 private:
  CLI::App& app_;
  const Program& p_;
};

}  // namespace

int run_program(CLI::App& app, int argc, char** argv, const Program& p) { return Runner(app, p).run(argc, argv); }

int run_main(std::string_view name, int (*run)(int, char**), int argc, char** argv) noexcept {
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%.*s: out of memory\n", static_cast<int>(name.size()), name.data());
  } catch (...) {
    std::fprintf(stderr, "%.*s: internal error\n", static_cast<int>(name.size()), name.data());
  }
  return kExitFailure;
}

}  // namespace forgemeter::cli
