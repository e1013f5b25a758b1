// `forgemeter fetch` as a process against the loopback forge: what its meter
// lines (stderr) count per host equals what the forge received, exactly.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "forgemeter/lines.h"
#include "process.h"
#include "testforge/forge.h"

using namespace forgemeter;
using namespace forgemeter::test;

namespace {

std::vector<std::string> fetch_args(const testforge::Forge& forge) {
  std::vector<std::string> a{forgemeter_bin(), "fetch"};
  for (const auto& r : forge.resolve()) {
    a.push_back("--resolve");
    a.push_back(r);
  }
  return a;
}

std::map<std::string, std::uint64_t> meter_counts(const std::string& err, std::uint64_t& lines) {
  std::map<std::string, std::uint64_t> by_host;
  std::istringstream in(err);
  std::string line;
  while (std::getline(in, line)) {
    LineScan s = scan_line(line);
    if (s.kind != LineScan::Kind::line) continue;
    ++lines;
    if (auto* c = std::get_if<CountLine>(&s.line))
      for (const auto& e : c->entries) by_host[e.host] += e.count;
  }
  return by_host;
}

}  // namespace

TEST_CASE("fetch: one line per request; the meter's counts per host equal the forge's") {
  testforge::Forge forge;
  TempDir dir;
  std::string urls = "# requests for the test\n";
  for (int i = 0; i < 20; ++i) urls += "GET " + forge.url("api.forge.test", "/repos/o/r/pulls/" + std::to_string(i)) + " lane=sweeper installation=7\n";
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
  CHECK(lines >= 2);  // count and answers lines at least
  CHECK(r.err.find("stopping)") != std::string::npos);  // flushed at exit, inside the hour
  auto truth = forge.truth().by_host();
  CHECK(counted == truth);
  std::uint64_t total = 0;
  for (const auto& [h, n] : truth) total += n;
  CHECK(total == 24);  // 20 + 1 + 3 hops
}

TEST_CASE("fetch errors: a refused connection is exit 1 with the error; a bad lane is usage") {
  testforge::Forge forge;
  auto args = fetch_args(forge);
  args.push_back("http://127.0.0.1:1/nothing");  // port 1: nothing listens
  auto r = run_process(args);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("error=connect_failed") != std::string::npos);

  auto lane = run_process({forgemeter_bin(), "fetch", "--lane", "Bad Lane", "http://127.0.0.1:1/"});
  CHECK(lane.exit_code == 2);
  CHECK(lane.err.find("lane 'Bad Lane'") != std::string::npos);
  auto none = run_process({forgemeter_bin(), "fetch"});
  CHECK(none.exit_code == 2);
}
