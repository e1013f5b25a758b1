// `forgemeter fetch` beside curl: the same options against the same loopback
// peer (raw_peer.h) put the same request on the wire and write the same
// output — -d @FILE, -d @-, --data-binary, --data-raw, --json, -A, -D,
// --fail-with-body, --compressed, and an option given twice (the last wins).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "forgemeter_bin.h"
#include "raw_peer.h"
#include "support/skips.h"

using namespace fmtest;

namespace {

const std::string kOk =
    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n";

struct Run {
  ProcessResult result;
  RawRequest sent;
};

// `program` (curl, or forgemeter fetch) with `args`, "URL" standing for the peer's URL.
Run run_against(const std::vector<std::string>& program, const std::string& answer, std::vector<std::string> args,
                const ProcessOptions& options = {}) {
  RawPeer peer(answer);
  std::vector<std::string> argv = program;
  for (auto& a : args) argv.push_back(a == "URL" ? peer.url("/p") : a);
  Run r{run_process(argv, options), {}};
  const auto got = peer.requests();
  if (!got.empty()) r.sent = got.front();
  return r;
}

struct Both {
  Run curl, fm;
};

// The same request by curl and by forgemeter; nullopt-like empty programs skip.
Both both(const std::string& answer, const std::vector<std::string>& args, const ProcessOptions& options = {}) {
  const std::string curl = find_on_path("curl");
  REQUIRE_MESSAGE(!curl.empty(), "curl is needed on PATH to compare with");
  return {run_against({curl, "-sS"}, answer, args, options),
          run_against({forgemeter_bin(), "fetch", "-sS", "--meter-log", "/dev/null"}, answer, args, options)};
}

// What both sent and how, field by field (User-Agent aside: each names itself).
void check_same_request(const Both& b, std::initializer_list<const char*> fields) {
  CAPTURE(b.curl.sent.head);
  CAPTURE(b.fm.sent.head);
  CHECK(b.fm.sent.line() == b.curl.sent.line());
  CHECK(b.fm.sent.body == b.curl.sent.body);
  for (const char* f : fields) {
    CAPTURE(f);
    CHECK(b.fm.sent.fields(f) == b.curl.sent.fields(f));
  }
  CHECK(b.fm.result.exit_code == b.curl.result.exit_code);
  CHECK(b.fm.result.out == b.curl.result.out);
}

}  // namespace

TEST_CASE("fetch -d @FILE, -d @-, --data-binary, --data-raw and --json send what curl sends") {
  TempDir dir;
  write_file(dir.file("form"), "a=1\r\nb=2\n");
  write_file(dir.file("doc.json"), "{\"k\":\n 1}\n");
  const std::vector<std::vector<std::string>> cases = {
      {"-d", "@" + dir.file("form"), "URL"},                                     // CR and LF stripped
      {"--data-binary", "@" + dir.file("form"), "URL"},                          // as it is
      {"-d", "x=1", "-d", "@" + dir.file("form"), "--data-binary", "y", "URL"},  // joined with '&', in order
      {"--data-raw", "@not-a-file", "URL"},                                      // no @ reading
      {"--json", "@" + dir.file("doc.json"), "URL"},                             // JSON's Content-Type and Accept
      {"--json", "{\"a\":", "--json", "1}", "URL"},                              // concatenated
      {"--json", "[]", "-H", "Accept: text/plain", "URL"},                       // -H overrides --json's
      {"-d", "", "URL"},                                                         // an empty body is still a POST
      {"-X", "PUT", "-d", "z", "URL"},
      {"-A", "agent/1.0", "URL"},
  };
  for (const auto& args : cases) {
    CAPTURE(args);
    const Both b = both(kOk, args);
    check_same_request(b, {"Content-Type", "Accept", "Content-Length"});
    if (args.front() == "-A") CHECK(b.fm.sent.fields("User-Agent") == std::vector<std::string>{"agent/1.0"});
  }
  // -d @- reads stdin, without its line ends.
  const Both piped = both(kOk, {"-d", "@-", "URL"}, {.stdin_data = "q=1\nr=2\n"});
  check_same_request(piped, {"Content-Type"});
  CHECK(piped.fm.sent.body == "q=1r=2");
}

TEST_CASE("fetch: an option given twice takes the last, as curl; -H, -d and URLs add up") {
  TempDir dir;
  const Both b = both(kOk, {"-X", "PATCH", "-X", "PUT", "-A", "first", "-A", "second", "-d", "a", "-m", "1", "-m", "30",
                            "-H", "X-One: 1", "-H", "X-Two: 2", "URL"});
  check_same_request(b, {"X-One", "X-Two", "Content-Type"});
  CHECK(b.fm.sent.line() == "PUT /p HTTP/1.1");
  CHECK(b.fm.sent.fields("User-Agent") == std::vector<std::string>{"second"});

  const Both out = both(kOk, {"-o", dir.file("first"), "-o", dir.file("second"), "URL"});
  CHECK(out.fm.result.exit_code == 0);
  CHECK(read_file(dir.file("second")) == "ok\n");
}

TEST_CASE("fetch -D FILE, --fail-with-body and --compressed write what curl writes") {
  TempDir dir;
  const std::string header = "HTTP/1.1 200 OK\r\nX-Seen: 1\r\nContent-Length: 3\r\nConnection: close\r\n\r\n";
  const Run curl = run_against({find_on_path("curl"), "-sS"}, header + "ok\n", {"-D", dir.file("curl.h"), "URL"});
  const Run fm = run_against({forgemeter_bin(), "fetch", "-sS", "--meter-log", "/dev/null"}, header + "ok\n",
                             {"-D", dir.file("fm.h"), "URL"});
  CHECK(fm.result.exit_code == 0);
  CHECK(fm.result.out == curl.result.out);
  CHECK(read_file(dir.file("fm.h")) == header);
  CHECK(read_file(dir.file("fm.h")) == read_file(dir.file("curl.h")));
  const Both to_stdout = both(header + "ok\n", {"-D", "-", "URL"});
  check_same_request(to_stdout, {});
  CHECK(to_stdout.fm.result.out == header + "ok\n");

  const std::string not_found = "HTTP/1.1 404 Not Found\r\nContent-Length: 8\r\nConnection: close\r\n\r\nmissing\n";
  const Both failing = both(not_found, {"--fail-with-body", "URL"});
  check_same_request(failing, {});
  CHECK(failing.fm.result.exit_code == 22);
  CHECK(failing.fm.result.out == "missing\n");
  const Both both_fails = both(not_found, {"-f", "--fail-with-body", "URL"});
  CHECK(both_fails.fm.result.exit_code == 2);  // curl: 2 as well, "choose one"
  CHECK(both_fails.curl.result.exit_code == 2);

  // gzip("hello\n"), sent as Content-Encoding: gzip.
  const std::string gz(
      "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xcb\x48\xcd\xc9\xc9\xe7\x02\x00\x20\x30\x3a\x36\x06\x00\x00\x00", 26);
  const std::string gzipped =
      "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 26\r\nConnection: close\r\n\r\n" + gz;
  const Both compressed = both(gzipped, {"--compressed", "URL"});
  CHECK(compressed.fm.result.out == "hello\n");
  CHECK(compressed.fm.result.out == compressed.curl.result.out);
  CHECK(!compressed.fm.sent.fields("Accept-Encoding").empty());
  const Both raw = both(gzipped, {"URL"});
  CHECK(raw.fm.result.out == gz);  // without --compressed: the bytes as sent, as curl writes them
  CHECK(raw.fm.sent.fields("Accept-Encoding").empty());
}
