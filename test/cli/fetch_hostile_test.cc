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

// `url` ("http://host…") with `user:kSecret@` before its host.
std::string with_password(const std::string& url) { return "http://user:" + kSecret + "@" + url.substr(7); }

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
      {"-f", missing},                                 // the error line of an HTTP error
      {refused},                                       // the error line of a failed exchange
      {"-w", "%{url} %{url_effective}\n", "-o", "/dev/null", ok},  // -w's URLs
      {with_password("http://127.0.0.1:1/")},          // a connection refused
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
