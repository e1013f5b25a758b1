// `forgemeter fetch` as a process against the loopback forge, its summary
// lines (--urls, --parallel, --summary): what its meter lines (stderr) count
// per host equals what the forge received, exactly. The curl-like options:
// fetch_curl_test.cc.
#include <doctest/doctest.h>

#include <algorithm>
#include <thread>

#include <signal.h>

#include "fetch_support.h"
#include "forgemeter_bin.h"
#include "testforge/forge.h"

using namespace forgemeter;
using namespace fmtest;

TEST_CASE("fetch: one line per request; the meter's counts per host equal the forge's") {
  testforge::Forge forge;
  TempDir dir;
  std::string urls = "# requests for the test\n";
  for (int i = 0; i < 20; ++i)
    urls += "GET " + forge.url("api.forge.test", "/repos/o/r/pulls/" + std::to_string(i)) +
            " lane=sweeper installation=7\n";
  urls += "POST " + forge.url("api.forge.test", "/graphql") + " lane=sweeper\n";
  write_file(dir.file("urls"), urls);
  auto args = fetch_args(forge);
  const std::string urls_file = dir.file("urls");
  args.insert(args.end(), {"--urls", urls_file, "--parallel", "4"});
  args.push_back(forge.url("api.forge.test", "/chain/2"));  // three hosts: api -> uploads -> codeload
  auto r = run_process(args);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 22);
  CHECK(r.out.find("200 GET " + forge.url("api.forge.test", "/chain/2")) != std::string::npos);
  CHECK(r.out.find("hops=3") != std::string::npos);
  std::uint64_t lines = 0;
  auto counted = meter_counts(r.err, lines);
  CHECK(lines >= 2);                                    // count and answers lines at least
  CHECK(r.err.find("stopping)") != std::string::npos);  // flushed at exit, inside the hour
  auto truth = forge.truth().by_host();
  CHECK(counted == truth);
  std::uint64_t total = 0;
  for (const auto& [h, n] : truth) total += n;
  CHECK(total == 24);  // 20 + 1 + 3 hops

  // `--urls -` reads the same list from stdin.
  auto from_stdin = fetch_args(forge);
  from_stdin.insert(from_stdin.end(), {"--urls", "-"});
  auto piped = run_process(from_stdin, {.stdin_data = urls});
  CHECK(piped.exit_code == 0);
  CHECK(std::count(piped.out.begin(), piped.out.end(), '\n') == 21);
}

TEST_CASE("fetch --summary errors: a refused connection is exit 1 with the error; a bad lane is usage") {
  testforge::Forge forge;
  auto args = fetch_args(forge);
  args.insert(args.end(), {"--summary", "http://127.0.0.1:1/nothing"});  // port 1: nothing listens
  auto r = run_process(args);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("error=connect_failed") != std::string::npos);

  auto lane = run_process({forgemeter_bin(), "fetch", "--lane", "Bad Lane", "http://127.0.0.1:1/"});
  CHECK(lane.exit_code == 2);
  CHECK(lane.err.find("lane 'Bad Lane'") != std::string::npos);
  auto none = run_process({forgemeter_bin(), "fetch"});
  CHECK(none.exit_code == 2);
}

TEST_CASE(
    "fetch: ids are whole numbers in range, never wrapped; a method or URL with a control byte is refused, escaped") {
  for (const std::string bad : {"-1", "18446744073709551616", "1.5", "+3", "x"}) {
    CAPTURE(bad);
    auto r = run_process({forgemeter_bin(), "fetch", "--installation", bad, "http://127.0.0.1:1/"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("is not an installation id") != std::string::npos);
  }
  TempDir dir;
  write_file(dir.file("urls"), "GET http://127.0.0.1:1/ installation=-1\n");
  auto in_file = run_process({forgemeter_bin(), "fetch", "--urls", dir.file("urls")});
  CHECK(in_file.exit_code == 2);
  CHECK(in_file.err.find(":1: '-1' is not an installation id") != std::string::npos);

  auto method = run_process({forgemeter_bin(), "fetch", "-X", "GE\x1b[31mT", "http://127.0.0.1:1/"});
  CHECK(method.exit_code == 2);
  CHECK(method.err.find("GE\\x1b[31mT") != std::string::npos);
  auto url = run_process({forgemeter_bin(), "fetch", "http://127.0.0.1:1/\x07\r"});
  CHECK(url.exit_code == 2);
  CHECK(url.err.find("\\x07\\x0d") != std::string::npos);
  for (const auto& r : {method, url})
    for (char c : r.err + r.out) CHECK((static_cast<unsigned char>(c) >= 0x20 || c == '\n'));
}

TEST_CASE("fetch: SIGINT or SIGTERM writes the lines finished so far and the meter's, then exits 128 + the signal") {
  for (const int sig : {SIGINT, SIGTERM}) {
    CAPTURE(sig);
    testforge::Forge forge;
    TempDir dir;
    const std::string key = "fetch-" + std::to_string(sig);
    auto args = fetch_args(forge);
    args.insert(args.end(), {"--parallel", "2", forge.url("api.forge.test", "/repos/o/r"),
                             forge.url("api.forge.test", "/hold/" + key)});
    const auto child = spawn_process(args, dir.file("out"), dir.file("err"));
    REQUIRE(forge.await_held(key, 1, std::chrono::seconds(20)));
    // The first request's line is out before the signal (it finished while the second is held).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (read_file(dir.file("out")).find('\n') == std::string::npos && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    REQUIRE(read_file(dir.file("out")).find('\n') != std::string::npos);  // written as it finished
    ::kill(child.pid, sig);
    CHECK(wait_exit(child.pid, std::chrono::seconds(20)) == 128 + sig);
    const std::string out = read_file(dir.file("out")), err = read_file(dir.file("err"));
    CHECK(out.find("200 GET " + forge.url("api.forge.test", "/repos/o/r")) == 0);
    CHECK(std::count(out.begin(), out.end(), '\n') == 1);
    std::uint64_t lines = 0;
    CHECK(meter_counts(err, lines) == forge.truth().by_host());  // both requests were sent, and counted
    CHECK(err.find("stopping)") != std::string::npos);
  }
}
