// The command line's conventions as a user meets them: unknown commands and
// options with the nearest spelling (exit 2), --version, the lease name rule,
// the generated man page read by man(1), and the bash completion loaded in bash.
#include <doctest/doctest.h>

#include <algorithm>

#include "core/components.h"
#include "forgemeter_bin.h"

using namespace fmtest;

namespace {

ProcessResult cli(std::vector<std::string> args) {
  args.insert(args.begin(), forgemeter_bin());
  return run_process(args);
}

// Each command line fails with exactly `said` on stderr, exit 2, nothing on stdout.
struct UsageCase {
  std::vector<std::string> args;
  std::string said;
};
void check_usage_errors(const std::vector<UsageCase>& cases) {
  for (const UsageCase& c : cases) {
    CAPTURE(c.args);
    auto r = cli(c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.err == c.said);
    CHECK(r.out.empty());
  }
}

bool printable(const std::string& s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\n') return false;
  return true;
}

// What the completion offers for `forgemeter WORDS…` (the last word is being
// completed), with the installed script sourced into a real bash.
std::string complete(const std::string& words, int cword) {
  const std::string script = "source " + std::string(FORGEMETER_COMPLETION) +
                             " && complete -p forgemeter >/dev/null"
                             " && COMP_WORDS=(" +
                             forgemeter_bin() + " " + words + ") && COMP_CWORD=" + std::to_string(cword) +
                             " && _forgemeter && printf '%s\\n' \"${COMPREPLY[@]}\"";
  auto r = run_process({find_on_path("bash"), "--norc", "--noprofile", "-c", script});
  REQUIRE(r.exit_code == 0);
  return r.out;
}

}  // namespace

TEST_CASE("an unknown command or option: the nearest spelling, exit 2") {
  check_usage_errors({
      {{"reprot"}, "forgemeter: unknown command 'reprot'; did you mean 'report'?\n"},
      {{"lease", "stauts", "x"},
       "forgemeter: unknown command 'stauts' for 'forgemeter lease'; did you mean 'status'?\n"},
      {{"report", "--formt", "csv"},
       "forgemeter: unknown option '--formt' for 'forgemeter report'; did you mean '--format'?\n"},
      {{"xyzzy"}, "forgemeter: unknown command 'xyzzy'; see 'forgemeter --help'\n"},
      // the suggestion is the parser's value, not words found in the message: a word that
      // reads like one still gets the way to --help
      {{"did you mean 'report'?"}, "forgemeter: unknown command 'did you mean 'report'?'; see 'forgemeter --help'\n"},
      // curl's options fetch leaves out say what to use instead; a short option gets no near-miss guess
      {{"fetch", "-k", "https://127.0.0.1:1/"},
       "forgemeter: unknown option '-k' for 'forgemeter fetch'; TLS is always verified: give the forge's CA "
       "with --cacert FILE; see 'forgemeter fetch --help'\n"},
      {{"fetch", "-Z", "http://127.0.0.1:1/"},
       "forgemeter: unknown option '-Z' for 'forgemeter fetch'; see 'forgemeter fetch --help'\n"},
      {{"lease", "run", "--store", "memory:", "x", "--"},
       "forgemeter: nothing follows '--' for 'forgemeter lease run': give the command to run after it; see "
       "'forgemeter lease run --help'\n"},
      {{}, "forgemeter: a command is needed: report, lease, fetch, proxy; see 'forgemeter --help'\n"},
      {{"lease"},
       "forgemeter: a command is needed for 'forgemeter lease': run, status, resign, serve; see 'forgemeter lease "
       "--help'\n"},
  });
}

TEST_CASE("a number out of its range: our words and the range the option takes, exit 2, nothing run") {
  struct Case {
    std::vector<std::string> args;
    std::string said;
  };
  for (const Case& c : {
           Case{{"fetch", "--retry", "99", "http://127.0.0.1:1/"},
                "forgemeter: --retry: '99' is not a retry count: give a whole number from 0 to 10; see 'forgemeter "
                "fetch --help'\n"},
           Case{{"fetch", "--max-redirs", "-1", "http://127.0.0.1:1/"},
                "forgemeter: --max-redirs: '-1' is not a redirect count: give a whole number from 0 to 50"},
           Case{
               {"fetch", "--parallel", "2.5", "http://127.0.0.1:1/"},
               "forgemeter: --parallel: '2.5' is not a number of requests in flight: give a whole number from 1 to 64"},
           Case{{"fetch", "--installation", "+7", "http://127.0.0.1:1/"},
                "forgemeter: --installation: '+7' is not an installation id: give a whole number from 0 to "
                "18446744073709551615"},
           Case{{"report", "--budget", "0", "/dev/null"},
                "forgemeter: --budget: '0' is not a budget: give a whole number from 1 to 18446744073709551615"},
           Case{{"report", "--threads", "99999999999999999999", "/dev/null"},
                "forgemeter: --threads: '99999999999999999999' is not a thread count: give a whole number from 0 to "
                "1024"},
       }) {
    CAPTURE(c.args);
    auto r = cli(c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind(c.said, 0) == 0);  // the message first, the whole of stderr
    CHECK(r.err.find('\n') == r.err.size() - 1);
    CHECK(printable(r.err));
    CHECK(r.out.empty());
  }
}

TEST_CASE("a mistyped word reaches the terminal without its control bytes") {
  auto r = cli({"re\x1b[2Jport\x07"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown command 're\\x1b[2Jport\\x07'") != std::string::npos);
  CHECK(printable(r.err));
}

TEST_CASE("--version and -V: ours and the libraries', exit 0") {
  for (const char* flag : {"--version", "-V"}) {
    auto r = cli({flag});
    CHECK(r.exit_code == 0);
    CHECK(r.out.rfind("forgemeter ", 0) == 0);
    CHECK(r.out.find("libcurl/") != std::string::npos);
    CHECK((r.out.find("libpq ") != std::string::npos) == bool(FORGEMETER_HAS_POSTGRES));  // when built with it
  }
}

TEST_CASE("lease run NAME -- CMD: one name rule with lanes; --name kept") {
  auto ok = cli({"lease", "run", "--store", "memory:", "merge-gate.sweeper_2", "--", "true"});
  CHECK(ok.exit_code == 0);
  auto alias = cli({"lease", "run", "--store", "memory:", "--name", "nightly", "--", "true"});
  CHECK(alias.exit_code == 0);
  for (const char* bad : {"Bad Name", "_leading", "other", "UPPER", ""}) {
    CAPTURE(bad);
    auto r = cli({"lease", "run", "--store", "memory:", "--name", bad, "--", "true"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("lease names follow the lane rule") != std::string::npos);
  }
  auto none = cli({"lease", "run", "--store", "memory:", "--", "true"});
  CHECK(none.exit_code == 2);
}

TEST_CASE("durations: the forms the tool prints are accepted; the range said is the one taken") {
  const auto ran = cli({"lease", "run", "--store", "memory:", "--ttl", "1m30s", "--grace", "500ms", "x", "--", "true"});
  CHECK(ran.exit_code == 0);
  CHECK(ran.err.find("elected (term 1, TTL 1m30s)") != std::string::npos);
  for (const std::string ttl : {"2ms", "8785h", "1.5", "90"}) {
    CAPTURE(ttl);
    const auto r = cli({"lease", "run", "--store", "memory:", "--ttl", ttl, "x", "--", "true"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("forgemeter: --ttl wants a duration from 3ms to 8784h written like 90s, 1m30s", 0) == 0);
  }
}

TEST_CASE("stdout that cannot be written (a full disk) is a failure, said on stderr, not a silent 0") {
  TempDir dir;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"report", FIXTURES "/replica-a.log"},
        std::vector<std::string>{"report", "--format", "json", FIXTURES "/replica-a.log"},
        std::vector<std::string>{"--version"}, std::vector<std::string>{"--help"},
        std::vector<std::string>{"report", "--help"}}) {
    CAPTURE(args);
    std::vector<std::string> argv{forgemeter_bin()};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto child = spawn_process(argv, "/dev/full", dir.file("err"));
    CHECK(wait_exit(child.pid, std::chrono::seconds(30)) == 1);
    CHECK(read_file(dir.file("err")) == "forgemeter: cannot write to stdout: No space left on device\n");
  }
}

TEST_CASE("man -l reads the generated page: every command has its section") {
  const std::string page = FORGEMETER_MAN_PAGE;
  if (page.empty()) FAIL("no man page was built: help2man was not found when CMake configured (apt install help2man)");
  auto r =
      run_process({find_on_path("man"), "-l", page}, ProcessOptions{{}, {{"MANPAGER", "cat"}, {"MANWIDTH", "100"}}});
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());  // no groff warning
  for (const char* part : {"NAME", "forgemeter - forge HTTP metering and leader leases", "SYNOPSIS", "COMMANDS",
                           "forgemeter report", "forgemeter lease run", "forgemeter lease status",
                           "forgemeter lease resign", "forgemeter lease serve", "--answer-validity", "forgemeter fetch",
                           "--source-field", "--serve-for", "forgemeter proxy", "--upstream", "--max-wait", "--app"})
    CHECK_MESSAGE(r.out.find(part) != std::string::npos, part);
  CHECK(r.out.find("\\e") == std::string::npos);  // roff escapes were rendered, not printed
  CHECK(r.out.find(".SS") == std::string::npos);
  // The footer: our name and version, not the libraries' versions after them.
  std::string footer = r.out.substr(0, r.out.find_last_not_of(" \n") + 1);
  footer = footer.substr(footer.rfind('\n') + 1);
  const std::string version = cli({"--version"}).out;
  CHECK(footer.rfind(version.substr(0, version.find(' ', std::string_view("forgemeter ").size())), 0) == 0);
  CHECK(footer.find("FORGEMETER(1)") != std::string::npos);
  CHECK(footer.find("libcurl") == std::string::npos);

  // Filled by roff at the reader's width: nothing runs past 80 columns, and an
  // option reads as typed (ASCII hyphens, each option a tagged paragraph).
  auto narrow = run_process({find_on_path("man"), "-l", page},
                            ProcessOptions{{}, {{"MANPAGER", "cat"}, {"MANWIDTH", "80"}, {"LC_ALL", "C.UTF-8"}}});
  REQUIRE(narrow.exit_code == 0);
  std::size_t longest = 0, at = 0;
  for (std::size_t end; (end = narrow.out.find('\n', at)) != std::string::npos; at = end + 1) {
    std::size_t columns = 0;  // UTF-8: count the bytes that start a character
    for (std::size_t i = at; i < end; ++i) columns += (static_cast<unsigned char>(narrow.out[i]) & 0xC0) != 0x80;
    longest = std::max(longest, columns);
  }
  CHECK(longest <= 80);
  CHECK(narrow.out.find("       --fail-on-exhausted\n") != std::string::npos);
  CHECK(narrow.out.find("\xE2\x80\x90") == std::string::npos);  // no U+2010 HYPHEN where a '-' was typed
}

TEST_CASE("bash completion: commands, options, files and the command after --") {
  CHECK(complete("re", 1) == "report\n");
  CHECK(complete("''", 1) == "report\nlease\nfetch\nproxy\n");
  CHECK(complete("lease ''", 2) == "run\nstatus\nresign\nserve\n");
  CHECK(complete("lease serve --answer", 3) == "--answer-validity\n");
  CHECK(complete("lease run --gr", 3) == "--grace\n");
  CHECK(complete("report --for", 2) == "--format\n--force\n");
  // an option that names its values offers them, not files
  CHECK(complete("report --format ''", 3) == "table\njson\ncsv\nhtml\n");
  CHECK(complete("report --by r", 3) == "replica\n");
  // a file after an option that takes a value, and as report's FILE
  CHECK(complete("report --html " + std::string(FORGEMETER_COMPLETION_DIR) + "/forgemeter.b", 3) ==
        std::string(FORGEMETER_COMPLETION_DIR) + "/forgemeter.bash\n");
  CHECK(complete("report " + std::string(FORGEMETER_COMPLETION_DIR) + "/forgemeter.b", 2) ==
        std::string(FORGEMETER_COMPLETION_DIR) + "/forgemeter.bash\n");
  // after --, a command: bash's own list of commands
  CHECK(complete("lease run n -- bas", 5).find("bash\n") != std::string::npos);
}

TEST_CASE("an option without its value: '--X needs a value (WHAT)', for every command's options, exit 2") {
  check_usage_errors({
      {{"report", "--html"}, "forgemeter: --html needs a value (FILE); see 'forgemeter report --help'\n"},
      {{"report", "/dev/null", "--since"},
       "forgemeter: --since needs a value (TEXT); see 'forgemeter report --help'\n"},
      {{"lease", "run", "--ttl"}, "forgemeter: --ttl needs a value (TEXT); see 'forgemeter lease run --help'\n"},
  });
  // A number option names its kind the parser's way; never CLI11's "1 required ... missing".
  auto r = cli({"report", "--budget"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("forgemeter: --budget needs a value (", 0) == 0);
  CHECK(r.err.find("required") == std::string::npos);
  CHECK(printable(r.err));
}
