// `forgemeter fetch` against what a hostile review tried: a password in a
// URL printed in clear, a header injected through -A, a redirect's userinfo
// turned into Basic credentials for another origin, -H as curl reads it (a
// tab after the colon, `Name:` removing a header, `Name;` an empty one), and
// a request body from /dev/zero or a FIFO no one writes to.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <chrono>
#include <string>
#include <vector>

#include "fetch_support.h"
#include "forgemeter_bin.h"
#include "raw_peer.h"
#include "testforge/forge.h"

using namespace forgemeter;
using namespace fmtest;
using Steady = std::chrono::steady_clock;

namespace {

const std::string kSecret = "s3kr1t-pw-4711";

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::vector<std::string> fetch(const testforge::Forge& forge, std::initializer_list<std::string> more) {
  std::vector<std::string> args = fetch_args(forge);
  args.insert(args.end(), more);
  return args;
}

// `url` ("http://host…") with `user:kSecret@` before its host.
std::string with_password(const std::string& url) { return "http://user:" + kSecret + "@" + url.substr(7); }

const std::string kEmpty = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

// What `program` (curl, or forgemeter fetch) sent to a raw peer with `args` before its URL.
RawRequest sent_by(std::vector<std::string> program, const std::vector<std::string>& args) {
  RawPeer peer(kEmpty);
  program.insert(program.end(), args.begin(), args.end());
  program.push_back(peer.url("/p"));
  const auto r = run_process(program);
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  const auto got = peer.requests();
  REQUIRE(got.size() == 1);
  return got.front();
}

}  // namespace

TEST_CASE("fetch: a URL's password is *** in every line that shows the URL, never in clear") {
  testforge::Forge forge;
  TempDir dir;
  const std::string ok = with_password(forge.url("api.forge.test", "/repos/o/r"));
  const std::string missing = with_password(forge.url("api.forge.test", "/status/404"));
  const std::string refused = with_password(forge.url("api.forge.test", testforge::redirect_path("ftp://x.test/")));
  write_file(dir.file("urls"), "GET " + ok + "\nGET " + missing + "\n");
  const std::vector<std::vector<std::string>> runs = {
      {"--summary", ok, missing, refused},
      {"--parallel", "2", ok, missing, refused},
      {"--urls", dir.file("urls")},
      {"-f", missing},                                             // the error line of an HTTP error
      {refused},                                                   // the error line of a failed exchange
      {"-w", "%{url} %{url_effective}\n", "-o", "/dev/null", ok},  // -w's URLs
      {with_password("http://127.0.0.1:1/")},                      // a connection refused
  };
  for (const auto& extra : runs) {
    CAPTURE(extra);
    std::vector<std::string> args = fetch_args(forge);
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_process(args);
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK_FALSE(has(r.out + r.err, kSecret));
    CHECK(has(r.out + r.err, "://user:***@"));
  }
}

TEST_CASE("fetch: -A and every option that becomes a header refuse CR, LF and other control bytes: nothing sent") {
  testforge::Forge forge;
  TempDir dir;
  write_file(dir.file("token"), "tok\r\nX-Injected: 1\n");
  ::chmod(dir.file("token").c_str(), 0600);
  const std::string url = forge.url("api.forge.test", "/redirect?to=http://uploads.forge.test/echo");
  const std::vector<std::vector<std::string>> cases = {
      {"-A", "agent\r\nAuthorization: Bearer stolen"},
      {"-A", "agent\nX-Injected: 1"},
      {"-A", "agent\x1b[31m"},
      {"-H", "X-Ok: value\r\nX-Injected: 1"},
      {"-H", "X-Bell: \x07"},
      {"--bearer-file", dir.file("token")},
  };
  for (const auto& extra : cases) {
    CAPTURE(extra);
    std::vector<std::string> args = fetch_args(forge);
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(url);
    const auto r = run_process(args);
    CAPTURE(r.err);
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, "control byte"));
    CHECK_FALSE(has(r.err, "\r"));
  }
  CHECK(forge.truth().total() == 0);
}

TEST_CASE("fetch: userinfo in a redirect's Location never becomes a credential; -v shows what each hop sent") {
  testforge::Forge forge;
  const std::string port = std::to_string(forge.port());
  const std::string other = "http://user:" + kSecret + "@uploads.forge.test:" + port + "/echo";
  const std::string same = "http://user:" + kSecret + "@api.forge.test:" + port + "/echo";
  for (const std::string& to : {other, same}) {
    CAPTURE(to);
    const auto before = forge.truth().requests().size();
    const auto r = run_process(fetch(forge, {"-v", forge.url("api.forge.test", testforge::redirect_path(to))}));
    CAPTURE(r.err);
    CHECK(r.exit_code == 0);
    const auto got = forge.truth().requests();
    REQUIRE(got.size() == before + 2);
    CHECK_FALSE(got[before + 1].has_header("Authorization"));
    const auto hop2 = r.err.find("* hop 2 of 2:");  // hop 1's URL holds the Location, percent-encoded
    REQUIRE(hop2 != std::string::npos);
    CHECK(r.err.find(kSecret, hop2) == std::string::npos);
    CHECK_FALSE(has(r.err, "Authorization"));  // none was sent, on either hop
  }
  // The request's own URL's userinfo is sent, as curl sends it, to its own
  // origin only; -v says so (its value as ***).
  const auto before = forge.truth().requests().size();
  const std::string start =
      with_password(forge.url("api.forge.test", testforge::redirect_path(forge.url("uploads.forge.test", "/echo"))));
  const auto r = run_process(fetch(forge, {"-v", start}));
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  const auto got = forge.truth().requests();
  REQUIRE(got.size() == before + 2);
  CHECK(got[before].header("Authorization").starts_with("Basic "));
  CHECK_FALSE(got[before + 1].has_header("Authorization"));
  const auto hop1 = r.err.find("* hop 1 of 2");
  const auto basic = r.err.find("> Authorization: Basic ***\n");
  const auto hop2 = r.err.find("* hop 2 of 2: uploads.forge.test:" + port + " (another origin: no credentials sent)");
  CHECK(hop1 < basic);
  CHECK(basic < hop2);
  CHECK(hop2 != std::string::npos);
  CHECK(r.err.find("Authorization", hop2) == std::string::npos);
  CHECK_FALSE(has(r.err, kSecret));
}

TEST_CASE("fetch -H as curl: a tab after the colon, 'Name:' removes the header, 'Name;' sends it empty") {
  const std::string curl = find_on_path("curl");
  REQUIRE_MESSAGE(!curl.empty(), "curl is needed on PATH to compare with");
  const std::vector<std::string> fm = {forgemeter_bin(), "fetch", "-sS", "--meter-log", "/dev/null"};
  TempDir dir;
  write_file(dir.file("token"), "from-file\n");
  ::chmod(dir.file("token").c_str(), 0600);

  const auto tab = sent_by(fm, {"-H", "Authorization:\ttoken X"});
  CHECK(tab.fields("Authorization") == std::vector<std::string>{"token X"});

  // -H 'Authorization:' removes the header fetch would make from --bearer-file, as curl's removes -u's.
  const auto removed = sent_by(fm, {"--bearer-file", dir.file("token"), "-H", "Authorization:"});
  CHECK(removed.fields("Authorization").empty());
  const auto curl_removed = sent_by({curl, "-sS"}, {"-u", "a:b", "-H", "Authorization:"});
  CHECK(curl_removed.fields("Authorization").empty());

  // 'Name;' sends the header empty; 'User-Agent:' sends none.
  const std::vector<std::string> args = {"-H", "X-Empty;", "-H", "User-Agent:"};
  const auto ours = sent_by(fm, args);
  const auto theirs = sent_by({curl, "-sS"}, args);
  CAPTURE(ours.head);
  for (const std::string name : {"X-Empty", "User-Agent"}) {
    CAPTURE(name);
    CHECK(ours.fields(name) == theirs.fields(name));
  }
  CHECK(ours.fields("X-Empty") == std::vector<std::string>{""});
  CHECK(ours.fields("User-Agent").empty());
  // Unlike curl (which sends the earlier one), 'Name:' takes an earlier -H of its name too: the last -H stands.
  CHECK(sent_by(fm, {"-H", "X-Gone: 1", "-H", "X-Gone:"}).fields("X-Gone").empty());
}

TEST_CASE("fetch -d @FILE is bounded while reading: /dev/zero refused at the bound, a FIFO with no writer by -m") {
  testforge::Forge forge;
  TempDir dir;
  const std::string url = forge.url("api.forge.test", "/echo");
  const auto t0 = Steady::now();
  const auto zero = run_process(fetch(forge, {"-d", "@/dev/zero", url}));
  CAPTURE(zero.err);
  CHECK(zero.exit_code == 2);
  CHECK(has(zero.err, "-d @/dev/zero: is longer than 67108864 bytes"));  // 64 MiB (was 256 MiB, 536 MB resident)
  CHECK(Steady::now() - t0 < std::chrono::seconds(10));

  // A FIFO no one opens for writing: the read gives up when -m's time is out.
  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto t1 = Steady::now();
  const auto stuck =
      run_process(fetch(forge, {"-m", "1", "--data-binary", "@" + fifo, url}), {.timeout = std::chrono::seconds(30)});
  const auto took = Steady::now() - t1;
  CAPTURE(stuck.err);
  CHECK_FALSE(stuck.timed_out);
  CHECK(stuck.exit_code == 2);  // as any body file that cannot be read: nothing sent
  CHECK(has(stuck.err, "--data-binary @" + fifo + ": nothing more came within 1000 ms"));
  // Margin: -m is 1 s; the process starts and ends well within 20 s more on a loaded machine.
  CHECK(took >= std::chrono::milliseconds(1000));
  CHECK(took < std::chrono::seconds(21));
  CHECK(forge.truth().total() == 0);
}
