// `forgemeter fetch` against what goes wrong around a request: credentials
// in files (empty, a directory, missing, /dev/zero, open to others) and
// beside -H, outputs that take no more (/dev/full), a meter log that cannot
// be written, SIGHUP, and answers no forge sends (HTTP/0.9, a 10 MB header
// field, X-RateLimit-Remaining twice), a lane with raw high bytes.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <chrono>
#include <string>
#include <vector>

#include <signal.h>

#include "fetch_support.h"
#include "forgemeter_bin.h"
#include "raw_peer.h"
#include "testforge/forge.h"

using namespace forgemeter;
using namespace fmtest;
using Steady = std::chrono::steady_clock;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// `forgemeter fetch` on the forge, and then `more`.
std::vector<std::string> fetch(const testforge::Forge& forge, std::initializer_list<std::string> more) {
  std::vector<std::string> args = fetch_args(forge);
  args.insert(args.end(), more);
  return args;
}

}  // namespace

TEST_CASE("fetch --bearer-file empty, a directory, missing or endless: usage error 2, nothing sent, at once") {
  testforge::Forge forge;
  TempDir dir;
  write_file(dir.file("empty"), "  \n");
  ::mkdir(dir.file("dir").c_str(), 0700);
  const std::string url = forge.url("api.forge.test", "/repos/o/r");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--bearer-file", dir.file("empty")}, "holds no token"},
      {{"--bearer-file", dir.file("dir")}, "is a directory"},
      {{"--bearer-file", dir.file("none")}, "No such file or directory"},
      {{"--bearer-file", "/dev/zero"}, "is longer than 65536 bytes"},
      {{"--urls", "/dev/zero"}, "--urls /dev/zero: is longer than"},
      {{"-w", "@/dev/zero"}, "-w @/dev/zero: cannot read the file (is longer than 65536 bytes"},
      {{"-d", "@" + dir.file("dir")}, "-d @" + dir.file("dir") + ": is a directory"},
  };
  for (const auto& [extra, message] : cases) {
    CAPTURE(extra);
    auto args = fetch(forge, {url});
    args.insert(args.end() - 1, extra.begin(), extra.end());
    const auto t0 = Steady::now();
    const auto r = run_process(args);
    CAPTURE(r.err);
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, message));
    CHECK(Steady::now() - t0 < std::chrono::milliseconds(5000));  // /dev/zero: read to the bound only (was 1.4 GB)
  }
  CHECK(forge.truth().total() == 0);
}

TEST_CASE("fetch --bearer-file open to group or others is warned about, and used") {
  testforge::Forge forge;
  TempDir dir;
  write_file(dir.file("token"), "inst-7\n");
  ::chmod(dir.file("token").c_str(), 0644);
  const auto r =
      run_process(fetch(forge, {"--bearer-file", dir.file("token"), forge.url("api.forge.test", "/repos/o/r")}));
  CHECK(r.exit_code == 0);
  CHECK(has(r.err, "forgemeter: warning: --bearer-file permissions 0644 are too open"));
  CHECK(has(r.err, "chmod 600 " + dir.file("token")));
  CHECK_FALSE(has(r.err, "inst-7"));
  ::chmod(dir.file("token").c_str(), 0600);
  const auto quiet =
      run_process(fetch(forge, {"--bearer-file", dir.file("token"), forge.url("api.forge.test", "/repos/o/r")}));
  CHECK(quiet.exit_code == 0);
  CHECK(only_meter_lines(quiet.err));
  const auto got = forge.truth().requests();
  REQUIRE(got.size() == 2);
  CHECK(got[1].header("Authorization") == "Bearer inst-7");
}

TEST_CASE("fetch -H 'Authorization: ...' wins over --bearer-file: one Authorization on the wire") {
  RawPeer peer("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
  TempDir dir;
  write_file(dir.file("token"), "from-file\n");
  ::chmod(dir.file("token").c_str(), 0600);
  for (const auto& extra : std::vector<std::vector<std::string>>{
           {"--bearer-file", dir.file("token"), "-H", "Authorization: token explicit"},
           {"-H", "authorization: token first", "-H", "Authorization: token explicit", "--bearer-file",
            dir.file("token")}}) {
    std::vector<std::string> args = {forgemeter_bin(), "fetch", "--meter-log", "/dev/null"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(peer.url());
    CHECK(run_process(args).exit_code == 0);
  }
  const auto got = peer.requests();
  REQUIRE(got.size() == 2);
  for (const auto& r : got) {
    CAPTURE(r.head);
    CHECK(r.fields("Authorization") == std::vector<std::string>{"token explicit"});
  }
}

TEST_CASE("fetch: once stdout takes no more (a full disk), no further request is sent") {
  testforge::Forge forge;
  TempDir dir;
  const std::string url = forge.url("api.forge.test", "/repos/o/r");
  const auto child = spawn_process(fetch(forge, {url, url, url}), "/dev/full", dir.file("err"));
  CHECK(wait_exit(child.pid, std::chrono::seconds(30)) == 23);
  CHECK(has(read_file(dir.file("err")), "(23) cannot write the answer to stdout"));
  CHECK(forge.truth().total() == 1);

  std::string urls;
  for (int i = 0; i < 30; ++i) urls += "GET " + url + "\n";
  write_file(dir.file("urls"), urls);
  const auto summary = spawn_process(fetch(forge, {"--urls", dir.file("urls")}), "/dev/full", dir.file("err2"));
  CHECK(wait_exit(summary.pid, std::chrono::seconds(30)) == 23);
  CHECK(has(read_file(dir.file("err2")), "cannot write the summary lines to stdout"));
  CHECK(forge.truth().total() == 1 + 1);  // was 1 + 30
}

TEST_CASE("fetch --meter-log that cannot be written: exit 1 with the reason") {
  testforge::Forge forge;
  const auto r = run_process(fetch(forge, {"--meter-log", "/dev/full", forge.url("api.forge.test", "/repos/o/r")}));
  CHECK(r.exit_code == 1);
  CHECK(has(r.err, "cannot write the meter's lines to --meter-log '/dev/full': No space left on device"));
}

TEST_CASE(
    "fetch: SIGHUP during a request writes the meter's lines, as SIGTERM, then exits 129; the attempt in "
    "flight is counted with no answer, so the answers sum to the requests") {
  testforge::Forge forge;
  TempDir dir;
  const auto child =
      spawn_process(fetch(forge, {forge.url("api.forge.test", "/hold/hup")}), dir.file("out"), dir.file("err"));
  REQUIRE(forge.await_held("hup", 1, std::chrono::seconds(20)));
  ::kill(child.pid, SIGHUP);
  CHECK(wait_exit(child.pid, std::chrono::seconds(20)) == 129);
  const std::string err = read_file(dir.file("err"));
  CHECK(has(err, "stopping)"));
  std::uint64_t lines = 0;
  CHECK(meter_counts(err, lines) == forge.truth().by_host());
  CHECK(has(err, "forge HTTP: 1 requests in the hour ending "));
  CHECK(has(err, " none=1\n"));  // the answers line: the cancelled attempt (there was no answers line)
  forge.release("hup");
}

TEST_CASE("fetch: an HTTP/0.9 answer exits 1 as curl; a 10 MB header field says 'header too large'") {
  RawPeer http09("just bytes, no status line\n");
  const auto old = run_process({forgemeter_bin(), "fetch", "--meter-log", "/dev/null", http09.url()});
  CAPTURE(old.err);
  CHECK(old.exit_code == 1);  // was 3, "unusable URL", though it was sent
  CHECK(has(old.err, "HTTP/0.9"));

  RawPeer huge("HTTP/1.1 200 OK\r\nX-Big: " + std::string(10 << 20, 'a') + "\r\nContent-Length: 0\r\n\r\n");
  const auto big = run_process({forgemeter_bin(), "fetch", "--meter-log", "/dev/null", huge.url()});
  CAPTURE(big.err);
  CHECK(big.exit_code == 1);
  CHECK(has(big.err, "header too large"));
}

TEST_CASE("fetch: X-RateLimit-Remaining twice reads as the lowest, whichever comes first") {
  for (const auto& [first, second] : {std::pair{"4990", "17"}, std::pair{"17", "4990"}}) {
    RawPeer peer(std::string("HTTP/1.1 200 OK\r\nX-RateLimit-Limit: 5000\r\nX-RateLimit-Remaining: ") + first +
                 "\r\nX-RateLimit-Remaining: " + second + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    const auto r = run_process({forgemeter_bin(), "fetch", "--installation", "7", peer.url("/repos/o/r")});
    CAPTURE(r.err);
    CHECK(r.exit_code == 0);
    CHECK(has(r.err, "installation 7: 17 of 5000 at "));
  }
}

TEST_CASE("fetch --lane with raw bytes 0x9b and 0xff: refused, the bytes escaped in the message") {
  const auto r = run_process({forgemeter_bin(), "fetch", "--lane", "a\x9b[31m\xff", "http://127.0.0.1:1/"});
  CHECK(r.exit_code == 2);
  CHECK(has(r.err, "lane 'a\\x9b[31m\\xff'"));
  CHECK(r.err.find('\x9b') == std::string::npos);
  CHECK(r.err.find('\xff') == std::string::npos);
}
