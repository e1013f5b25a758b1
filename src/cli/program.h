// program.h — how forgemeter's programs (`forgemeter`, `forgemeter-demo`)
// run: parse the command line, run what it asked for, and turn every outcome
// into an exit code and at most one line on stderr, "PROGRAM: what":
//
//   0  done (--help and --version included, once written)
//   1  a failure: an exception from the work, or stdout that could not be
//      written (a full disk, a pipe closed while SIGPIPE is ignored; as GNU's
//      close_stdout: never a silent 0), --help's text included
//   2  a usage error: the parser's, a check's (CLI::ValidationError) or a
//      UsageError from the work; "; see 'PROGRAM COMMAND --help'" follows,
//      unless the line names the nearest word the user may have meant
//
// Each line is redacted (the CLI masks passwords) and then escaped for the
// terminal (terminal_text): the user's words are quoted as given.
// Thread-safety: call from main() only.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace CLI {
class App;
}

namespace forgemeter::cli {

struct Program {
  // Once parsed: the checks the parser cannot make (they throw
  // CLI::ValidationError); none when empty.
  std::function<void()> check;
  // The work; returns the exit code, or throws UsageError (2) or any
  // std::exception (1).
  std::function<int()> run;
  // What a line for stderr may show; the line unchanged when empty.
  std::function<std::string(std::string_view)> redact;
  // An exit code that already says stdout could not be written (fetch's,
  // curl's 23): kept, and not said twice.
  std::optional<int> write_error_exit;
};

// Parses argc/argv with `app` (named as the program: its name starts every
// line), runs `p`, and returns the exit code. What a failed write of stdout
// leaves unwritten is the program's: it is reported, not retried.
int run_program(CLI::App& app, int argc, char** argv, const Program& p);

// main()'s last net: what `run` lets escape (an allocation failing while an
// error is printed) ends with "NAME: out of memory" or "NAME: internal
// error" and exit 1, not abort().
int run_main(std::string_view name, int (*run)(int, char**), int argc, char** argv) noexcept;

}  // namespace forgemeter::cli
