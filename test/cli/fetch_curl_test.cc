// `forgemeter fetch` with curl's options, as a process against the loopback
// forge (and, for --connect-timeout, a 127.0.0.1 listener that never answers
// a SYN): the answer on stdout or in -o's file, -i, -s, -v, -f, -w, -m,
// --connect-timeout, and curl's exit codes.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <signal.h>
#include <unistd.h>

#include "fetch_support.h"
#include "forgemeter_bin.h"
#include "testforge/forge.h"

using namespace forgemeter;
using namespace fmtest;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

namespace {

std::vector<std::string> with(std::vector<std::string> args, std::initializer_list<std::string> more) {
  args.insert(args.end(), more);
  return args;
}

// A resource the forge answers in its plain shape (no URL of its origin in it).
const std::string kRepoPath = "/repos/o/r/readme";
const std::string kRepoBody = R"({"path":"/repos/o/r/readme","state":"open"})";

bool has_control_byte(const std::string& s) {
  for (char c : s)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f) return true;
  return false;
}

// How long a fetch took, run to its end.
ProcessResult timed(const std::vector<std::string>& args, milliseconds& took) {
  const auto t0 = steady_clock::now();
  auto r = run_process(args);
  took = std::chrono::duration_cast<milliseconds>(steady_clock::now() - t0);
  return r;
}

}  // namespace

TEST_CASE("fetch: the body to stdout, byte for byte; stderr holds only the meter's lines") {
  testforge::Forge forge;
  auto r = run_process(with(fetch_args(forge), {forge.url("api.forge.test", kRepoPath)}));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == kRepoBody);
  CHECK(only_meter_lines(r.err));

  // -d sends a body and, as with curl, makes the method POST.
  auto post = run_process(with(fetch_args(forge), {"-d", "abc", forge.url("api.forge.test", "/echo")}));
  CHECK(post.exit_code == 0);
  CHECK(post.out == R"({"method":"POST","body_bytes":3})");
}

TEST_CASE("fetch -o FILE writes the answer there, -o - to stdout") {
  testforge::Forge forge;
  TempDir dir;
  const std::string file = dir.file("answer.json");
  auto r = run_process(with(fetch_args(forge), {"-o", file, forge.url("api.forge.test", kRepoPath)}));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.empty());
  CHECK(read_file(file) == kRepoBody);

  auto dash = run_process(with(fetch_args(forge), {"-o", "-", forge.url("api.forge.test", kRepoPath)}));
  CHECK(dash.exit_code == 0);
  CHECK(dash.out == kRepoBody);

  // A file that cannot be created: curl's write error, 23.
  auto bad =
      run_process(with(fetch_args(forge), {"-o", dir.file("no/such/dir/x"), forge.url("api.forge.test", kRepoPath)}));
  CHECK(bad.exit_code == 23);
  CHECK(bad.err.find("(23) cannot write the answer to") != std::string::npos);
}

TEST_CASE("fetch -i: the final answer's status line and header fields, then the body") {
  testforge::Forge forge;
  auto r = run_process(with(fetch_args(forge), {"-i", forge.url("api.forge.test", "/chain/1")}));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
  CHECK(r.out.find("\r\nContent-Type: application/json\r\n") != std::string::npos);
  CHECK(r.out.find("\r\nX-RateLimit-Remaining: ") != std::string::npos);
  const std::string body = R"({"method":"GET","body_bytes":0})";
  CHECK(r.out.size() > body.size() + 4);
  CHECK(r.out.substr(r.out.size() - body.size() - 4) == "\r\n\r\n" + body);
  CHECK(r.out.find("HTTP/1.1 302") == std::string::npos);  // the redirect's answer is not the final one
}

TEST_CASE(
    "fetch -s: no error message (the exit code says it), -sS shows it; the meter's lines stay or go to --meter-log") {
  testforge::Forge forge;
  const std::string refused = "http://127.0.0.1:1/nothing";  // port 1: nothing listens
  auto loud = run_process(with(fetch_args(forge), {refused}));
  CHECK(loud.exit_code == 7);
  CHECK(loud.err.find("forgemeter: (7) GET " + refused + ": connect_failed: ") != std::string::npos);
  CHECK(loud.out.empty());

  auto quiet = run_process(with(fetch_args(forge), {"-s", refused}));
  CHECK(quiet.exit_code == 7);
  CHECK(quiet.err.find("forgemeter:") == std::string::npos);
  CHECK(only_meter_lines(quiet.err));  // the meter's lines are a record, not progress: they stay

  auto shown = run_process(with(fetch_args(forge), {"-sS", refused}));
  CHECK(shown.exit_code == 7);
  CHECK(shown.err.find("forgemeter: (7)") != std::string::npos);

  TempDir dir;
  const std::string log = dir.file("meter.log");
  auto logged =
      run_process(with(fetch_args(forge), {"-s", "--meter-log", log, forge.url("api.forge.test", kRepoPath)}));
  CHECK(logged.exit_code == 0);
  CHECK(logged.err.empty());
  CHECK(logged.out == kRepoBody);
  std::uint64_t lines = 0;
  CHECK(meter_counts(read_file(log), lines) == forge.truth().by_host());
  CHECK(lines >= 2);

  // --meter-log -: the lines go to stdout, after the answer.
  auto to_stdout =
      run_process(with(fetch_args(forge), {"-s", "--meter-log", "-", forge.url("api.forge.test", kRepoPath)}));
  CHECK(to_stdout.exit_code == 0);
  CHECK(to_stdout.err.empty());
  REQUIRE(to_stdout.out.rfind(kRepoBody, 0) == 0);
  CHECK(only_meter_lines(to_stdout.out.substr(kRepoBody.size())));
}

TEST_CASE("fetch -v: each hop of a redirect chain on stderr, credentials as ***, never their values") {
  testforge::Forge forge;
  TempDir dir;
  const std::string bearer = "s3cr3t-bearer-4711", cookie = "c00kie-secret-99", proxy = "pr0xy-secret-7",
                    gitlab = "glpat-s3cret-42";
  write_file(dir.file("token"), bearer + "\n");
  const std::string port = std::to_string(forge.port());
  auto r = run_process(
      with(fetch_args(forge), {"-v", "--bearer-file", dir.file("token"), "-H", "Cookie: session=" + cookie, "-H",
                               "Proxy-Authorization: Basic " + proxy, "-H", "PRIVATE-TOKEN: " + gitlab, "-H",
                               "X-Visible: shown", forge.url("api.forge.test", "/chain/2")}));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == R"({"method":"GET","body_bytes":0})");
  // GitLab's token header is a credential too: shown as ***, and the server got it on its origin only.
  const auto got = forge.truth().requests();
  REQUIRE(got.size() == 3);
  CHECK(got[0].header("PRIVATE-TOKEN") == gitlab);
  CHECK_FALSE(got[1].has_header("PRIVATE-TOKEN"));
  CHECK_FALSE(got[2].has_header("PRIVATE-TOKEN"));
  for (const auto& secret : {bearer, cookie, proxy, gitlab}) {
    CHECK(r.err.find(secret) == std::string::npos);
    CHECK(r.out.find(secret) == std::string::npos);
  }
  const auto at = [&](const std::string& text) { return r.err.find(text); };
  const auto hop1 = at("* hop 1 of 3: api.forge.test:" + port + "\n> GET " + forge.url("api.forge.test", "/chain/2") +
                       "\n> Authorization: Bearer ***\n> Cookie: ***\n> Proxy-Authorization: ***\n"
                       "> PRIVATE-TOKEN: ***\n> X-Visible: shown\n< 302\n");
  const auto hop2 = at("* hop 2 of 3: uploads.forge.test:" + port + " (another origin: no credentials sent)\n> GET " +
                       forge.url("uploads.forge.test", "/chain/1?status=302") + "\n> X-Visible: shown\n< 302\n");
  const auto hop3 =
      at("* hop 3 of 3: codeload.forge.test:" + port + " (another origin: no credentials sent)\n> GET " +
         forge.url("codeload.forge.test", "/chain/0?status=302") + "\n> X-Visible: shown\n< HTTP/1.1 200 OK\n");
  CHECK(hop1 != std::string::npos);
  CHECK(hop2 != std::string::npos);
  CHECK(hop3 != std::string::npos);
  CHECK((hop1 < hop2 && hop2 < hop3));
  CHECK(at("< Content-Type: application/json\n") > hop3);
}

TEST_CASE("fetch: a forge's control bytes reach stdout raw with -i (data) and escaped in -v (diagnostics)") {
  testforge::Forge forge;
  auto r = run_process(with(fetch_args(forge), {"-i", "-v", forge.url("api.forge.test", "/hostile?kind=control")}));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("X-RateLimit-Limit: 12\x01\x1b[31m") != std::string::npos);
  CHECK(r.err.find("< X-RateLimit-Limit: 12\\x01\\x1b[31m\\x7f") != std::string::npos);
  CHECK_FALSE(has_control_byte(r.err));
}

TEST_CASE("fetch into a pipe whose reader is gone: curl's 23 and the meter's lines, not a silent SIGPIPE") {
  testforge::Forge forge;
  TempDir dir;
  const std::string closed = dir.file("closed");
  // The reader closes its end, says so, and leaves; only then does the forge answer.
  auto args = with(fetch_args(forge), {forge.url("api.forge.test", "/hold/pipe")});
  args.insert(
      args.begin(),
      {find_on_path("bash"), "-c",
       R"(closed=$1; shift; "$@" | { exec 0<&-; : > "$closed"; }; echo "exit ${PIPESTATUS[0]}" >&2)", "bash", closed});
  const auto child = spawn_process(args, dir.file("out"), dir.file("err"));
  REQUIRE(forge.await_held("pipe", 1, std::chrono::seconds(30)));
  for (int i = 0; i < 3000 && !std::filesystem::exists(closed); ++i) std::this_thread::sleep_for(milliseconds(10));
  REQUIRE(std::filesystem::exists(closed));  // polled: a file the shell writes, no event to wait on
  forge.release("pipe");
  CHECK(wait_exit(child.pid, std::chrono::seconds(30)) == 0);
  const std::string err = read_file(dir.file("err"));
  INFO(err);
  CHECK(err.find("forgemeter: (23) cannot write the answer to stdout") != std::string::npos);
  CHECK(err.find("forge HTTP: 1 requests in the hour ending ") != std::string::npos);
  CHECK(err.ends_with("exit 23\n"));
}

TEST_CASE("fetch -f: an HTTP error exits 22 without writing the answer; without -f it is an answer like any") {
  testforge::Forge forge;
  const std::string url = forge.url("api.forge.test", "/status/404");
  auto plain = run_process(with(fetch_args(forge), {url}));
  CHECK(plain.exit_code == 0);
  CHECK(plain.out == "status 404\n");

  auto failing = run_process(with(fetch_args(forge), {"-f", url}));
  CHECK(failing.exit_code == 22);
  CHECK(failing.out.empty());
  CHECK(failing.err.find("forgemeter: (22) GET " + url + ": the server answered 404") != std::string::npos);

  auto fine = run_process(with(fetch_args(forge), {"-f", forge.url("api.forge.test", kRepoPath)}));
  CHECK(fine.exit_code == 0);
  CHECK(fine.out == kRepoBody);
}

TEST_CASE(
    "fetch: curl's exit codes for a redirect loop (47), a connection dropped mid-body (56), a scheme never sent (3), "
    "a name that does not resolve (6), a TLS handshake that fails (35)") {
  testforge::Forge forge;
  // A 64-byte label is past DNS's 63: the resolver refuses the name without sending a query.
  const std::string unresolvable = "http://" + std::string(64, 'a') + ".invalid/";
  // TLS spoken to the forge's plain-HTTP listener: the handshake fails on its first answer.
  const std::string tls_to_plain = "https://127.0.0.1:" + std::to_string(forge.port()) + "/repos/o/r";
  const std::vector<std::pair<std::vector<std::string>, int>> cases = {
      {{"--max-redirs", "2", forge.url("api.forge.test", "/loop")}, 47},
      {{forge.url("api.forge.test", "/drop")}, 56},
      {{"ftp://127.0.0.1/"}, 3},
      {{unresolvable}, 6},
      {{tls_to_plain}, 35},
  };
  for (const auto& [extra, code] : cases) {
    auto args = fetch_args(forge);
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run_process(args);
    CAPTURE(r.err);
    CHECK(r.exit_code == code);
    // The body is streamed: what came before the drop was written, as curl writes it.
    if (code != 56) CHECK(r.out.empty());
    CHECK(r.err.find("forgemeter: (" + std::to_string(code) + ") GET ") != std::string::npos);
  }
}

TEST_CASE("fetch -w: http_code, num_redirects, url_effective, time_total after a redirect chain") {
  testforge::Forge forge;
  auto r = run_process(with(fetch_args(forge), {"-o", "-", "-w", R"(%{http_code} %{num_redirects} %{url_effective}\n)",
                                                forge.url("api.forge.test", "/chain/2")}));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == R"({"method":"GET","body_bytes":0})" + std::string("200 2 ") +
                     forge.url("codeload.forge.test", "/chain/0?status=302") + "\n");

  auto more = run_process(with(
      fetch_args(forge), {"-s", "-o", "/dev/null", "-w", R"(%{time_total}|%{method}|%{size_download}|%%|%{exitcode}\t)",
                          forge.url("api.forge.test", kRepoPath)}));
  CHECK(more.exit_code == 0);
  const auto bar = more.out.find('|');
  REQUIRE(bar != std::string::npos);
  const double seconds = std::stod(more.out.substr(0, bar));
  CHECK(seconds > 0.0);
  CHECK(seconds < 30.0);
  CHECK(more.out.substr(bar - 7, 1) == ".");  // six decimals, as curl prints it
  CHECK(more.out.substr(bar) == "|GET|" + std::to_string(kRepoBody.size()) + "|%|0\t");

  // %header{name}: the final answer's field, any case; empty when it has none. -w @FILE reads the format.
  TempDir dir;
  write_file(dir.file("format"), "%header{content-type}|%header{X-None}|%{http_code}\\n");
  auto headers = run_process(with(fetch_args(forge), {"-s", "-o", "/dev/null", "-w", "@" + dir.file("format"),
                                                      forge.url("api.forge.test", kRepoPath)}));
  CHECK(headers.exit_code == 0);
  CHECK(headers.out == "application/json||200\n");
  auto unread =
      run_process(with(fetch_args(forge), {"-w", "@" + dir.file("none"), forge.url("api.forge.test", kRepoPath)}));
  CHECK(unread.exit_code == 2);
  CHECK(unread.err.find("-w @" + dir.file("none") + ": cannot read the file") != std::string::npos);

  // Without an answer: 000, curl's exit code, the error.
  auto none = run_process(with(fetch_args(forge), {"-s", "-w", "%{http_code} %{exitcode}", "http://127.0.0.1:1/"}));
  CHECK(none.exit_code == 7);
  CHECK(none.out == "000 7");
}

TEST_CASE("fetch -m ends a request the forge holds, with curl's 28, in the seconds or the duration form") {
  testforge::Forge forge;
  for (const std::string limit : {"0.5", "500ms"}) {
    CAPTURE(limit);
    milliseconds took{};
    const auto r = timed(with(fetch_args(forge), {"-m", limit, forge.url("api.forge.test", "/hold/m-" + limit)}), took);
    CHECK(r.exit_code == 28);
    CHECK(r.err.find("forgemeter: (28) GET ") != std::string::npos);
    CHECK(r.err.find(": timeout: ") != std::string::npos);
    CHECK(r.out.empty());
    CHECK(took >= milliseconds(500));
    CHECK(took < milliseconds(500 + 4000));  // the margin: process start-up and exit, under ASan too
    CHECK(forge.truth().by_host().at("api.forge.test:" + std::to_string(forge.port())) >= 1);  // it was sent
  }
}

TEST_CASE("fetch -m bounds each URL's whole request, as curl's: its redirects and retries included") {
  testforge::Forge forge;
  // Two hops of 1 s each: each fits in 1.5 s, the two do not (0.5 s of margin either way).
  const std::string chain = forge.url("api.forge.test", "/slow/1000?to=/slow/1000");
  milliseconds took{};
  const auto cut = timed(with(fetch_args(forge), {"-m", "1.5", chain}), took);
  INFO(cut.err);
  CHECK(cut.exit_code == 28);
  CHECK(cut.out.empty());
  CHECK(took >= milliseconds(1500));
  CHECK(took < milliseconds(1500 + 4000));  // the margin: process start-up and exit, under ASan too
  CHECK(forge.truth().total() == 2);        // both hops were sent; the second ran out of time

  const auto whole = run_process(with(fetch_args(forge), {"-m", "30", "-w", "%{num_redirects}", chain}));
  CHECK(whole.exit_code == 0);
  CHECK(whole.out == R"({"method":"GET","body_bytes":0})" + std::string("1"));

  // A retry whose wait (Retry-After: 5 s) would pass -m is not made: the answer at hand stands, at once.
  const auto limited =
      timed(with(fetch_args(forge), {"-f", "--retry", "3", "-m", "2", "-w", "%{http_code}",
                                     forge.url("api.forge.test", "/secondary/m?fail=3&retry_after=5")}),
            took);
  CHECK(limited.exit_code == 22);
  CHECK(limited.out == "403");
  CHECK(took < milliseconds(2000));
  CHECK(forge.truth().total() == 2 + 2 + 1);
}

TEST_CASE("fetch --connect-timeout ends a connect that gets no answer, with curl's 28") {
  FullListener silent;
  const std::string url = "http://127.0.0.1:" + std::to_string(silent.port()) + "/";
  milliseconds took{};
  const auto r = timed({forgemeter_bin(), "fetch", "--connect-timeout", "300ms", "-m", "30", url}, took);
  INFO(r.err);
  CHECK(r.exit_code == 28);
  CHECK(r.err.find(": timeout: ") != std::string::npos);
  CHECK(took >= milliseconds(300));
  CHECK(took < milliseconds(300 + 4000));  // well before -m's 30 s and the kernel's first SYN retry past 1 s
}

TEST_CASE("fetch usage errors exit 2 with what to do, before anything is sent") {
  testforge::Forge forge;
  TempDir dir;
  write_file(dir.file("urls"), "GET " + forge.url("api.forge.test", kRepoPath) + "\n");
  const std::string url = forge.url("api.forge.test", kRepoPath);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-m", "soon", url}, "-m/--max-time wants seconds like 5 or 2.5, or a duration like 500ms or 1m30s"},
      {{"--connect-timeout", "0", url}, "--connect-timeout wants seconds"},
      {{"-w", "%{http_code} %{nope}", url}, "-w: unknown variable '%{nope}' (known: http_code,"},
      {{"-w", "%{http_code", url}, "-w: '%{' without its '}'"},
      {{"-i", "--urls", dir.file("urls")}, "-i writes each answer; with --urls, --parallel or --summary"},
      {{"-v", "--parallel", "2", url, url}, "-v writes each answer"},
      {{"-o", dir.file("x"), url, url}, "-o FILE takes the answer of one URL"},
      {{"--no-such-option", url}, "--no-such-option"},
  };
  for (const auto& [extra, message] : cases) {
    auto args = fetch_args(forge);
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run_process(args);
    CAPTURE(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(message) != std::string::npos);
    CHECK(r.err.find("see 'forgemeter fetch --help'") != std::string::npos);
    CHECK(r.out.empty());
  }
  CHECK(forge.truth().by_host().empty());
}

TEST_CASE("fetch --summary: one line per request, as with --urls; -f there is 22 on an HTTP error") {
  testforge::Forge forge;
  auto r = run_process(with(fetch_args(forge), {"--summary", "-f", forge.url("api.forge.test", kRepoPath),
                                                forge.url("api.forge.test", "/status/404")}));
  CHECK(r.exit_code == 22);
  CHECK(r.out.rfind("200 GET " + forge.url("api.forge.test", kRepoPath) + " ", 0) == 0);
  CHECK(r.out.find("\n404 GET " + forge.url("api.forge.test", "/status/404") + " ") != std::string::npos);
}

TEST_CASE("fetch (as curl): SIGTERM during a request writes the meter's lines, then exits 143; no answer, no -o file") {
  testforge::Forge forge;
  TempDir dir;
  auto args = with(fetch_args(forge), {"-o", dir.file("answer"), forge.url("api.forge.test", "/hold/term")});
  const auto child = spawn_process(args, dir.file("out"), dir.file("err"));
  REQUIRE(forge.await_held("term", 1, std::chrono::seconds(20)));
  ::kill(child.pid, SIGTERM);
  CHECK(wait_exit(child.pid, std::chrono::seconds(20)) == 143);
  const std::string err = read_file(dir.file("err"));
  CHECK(only_meter_lines(err));
  CHECK(err.find("stopping)") != std::string::npos);
  std::uint64_t lines = 0;
  CHECK(meter_counts(err, lines) == forge.truth().by_host());  // the held request was sent, and counted
  CHECK(read_file(dir.file("out")).empty());
  CHECK(::access(dir.file("answer").c_str(), F_OK) != 0);
}
