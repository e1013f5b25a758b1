// Real forge clients, unchanged, through `forgemeter proxy` to the loopback
// forge: octokit (npm) and PyGithub (Debian's python3-github) page through
// the proxy by its rewritten Link and `url` fields; the forge's count per
// lane equals the proxy's hourly lines and its /metrics; a repeated read is
// a 304 upstream and Cache-Status says so; two tokens never share a body.
#include <doctest/doctest.h>

#include <map>
#include <regex>
#include <string>

#include "proxy_run.h"
#include "support/process.h"
#include "testforge/forge.h"

using namespace forgemeter;
using namespace fmtest;

namespace {

// Sums `lane=N` over the hourly count lines ("forge HTTP: …").
std::map<std::string, std::uint64_t> lines_by_lane(const std::string& lines) {
  std::map<std::string, std::uint64_t> out;
  static const std::regex entry(R"(\b([a-z][a-z0-9_.-]*)=(\d+))");
  std::size_t at = 0;
  while ((at = lines.find("forge HTTP: ", at)) != std::string::npos) {
    const std::size_t end = lines.find('\n', at);
    const std::string line = lines.substr(at, end - at);
    const std::size_t dash = line.find(" — ");
    if (dash != std::string::npos)
      for (std::sregex_iterator m(line.begin() + static_cast<long>(dash), line.end(), entry), e; m != e; ++m)
        out[(*m)[1]] += std::stoull((*m)[2]);
    at = end;
  }
  return out;
}

// forgemeter_requests_total summed by lane, from a scrape.
std::map<std::string, std::uint64_t> metrics_by_lane(const std::string& text) {
  std::map<std::string, std::uint64_t> out;
  static const std::regex sample(R"re(^forgemeter_requests_total\{[^}]*lane="([^"]*)"[^}]*\} (\d+)$)re");
  std::smatch m;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, end - at);
    if (std::regex_match(line, m, sample)) out[m[1]] += std::stoull(m[2]);
    at = end + 1;
  }
  return out;
}

ProcessResult curl(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {find_on_path("curl"), "-sS", "-D", "-"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

}  // namespace

TEST_CASE("octokit and PyGithub page through the proxy; its lines and metrics equal the forge's count by lane") {
  testforge::Forge forge;
  ProxyRun proxy(forge);
  const auto octokit = run_process({find_on_path("node"), clients_dir() + "/octokit_pulls.mjs",
                                    proxy.url() + "/lanes/octokit", "inst-101", "o/r", "30"});
  INFO(octokit.err);
  REQUIRE(octokit.exit_code == 0);
  const std::string proxy_host = proxy.url().substr(std::string("http://").size());
  CHECK(octokit.out == R"({"count":75,"hosts":[")" + proxy_host + "\"]}\n");

  const auto pygithub = run_process({debian_python(), clients_dir() + "/pygithub_pulls.py",
                                     proxy.url() + "/lanes/pygithub", "inst-102", "o/r", "30"});
  INFO(pygithub.err);
  REQUIRE(pygithub.exit_code == 0);
  CHECK(pygithub.out.find(R"("count": 75)") != std::string::npos);
  CHECK(pygithub.out.find(proxy_host) != std::string::npos);

  const auto truth = forge.truth().by_lane();
  CHECK(truth.at("octokit") == 3);   // three pages of 30, 30, 15
  CHECK(truth.at("pygithub") >= 4);  // the repository, three pages, the pull
  const auto scrape = run_process({find_on_path("curl"), "-sS", proxy.admin() + "/metrics"});
  std::map<std::string, std::uint64_t> expected(truth.begin(), truth.end());
  CHECK(metrics_by_lane(scrape.out) == expected);
  REQUIRE(proxy.stop() == 0);
  CHECK(lines_by_lane(proxy.meter_lines()) == expected);
  CHECK(proxy.meter_lines().find("stopping)") != std::string::npos);  // the partial hour, written at SIGTERM
}

TEST_CASE("a repeated read is a 304 upstream and Cache-Status says so; two tokens never share a body") {
  testforge::Forge forge;
  ProxyRun proxy(forge);
  const std::string url = proxy.url() + "/repos/o/r/issues/1";
  const auto first = curl({"-H", "Authorization: Bearer inst-101", url});
  CHECK(first.out.find("Cache-Status: forgemeter; fwd=uri-miss; stored") != std::string::npos);
  const auto again = curl({"-H", "Authorization: Bearer inst-101", url});
  CHECK(again.out.find("Cache-Status: forgemeter; fwd=stale; fwd-status=304") != std::string::npos);
  CHECK(again.out.substr(again.out.find("\r\n\r\n")) == first.out.substr(first.out.find("\r\n\r\n")));
  const auto other = curl({"-H", "Authorization: Bearer inst-202", url});
  CHECK(other.out.find("fwd-status=304") == std::string::npos);  // its own answer, not the other token's
  const auto viewer = [](const std::string& s) { return s.substr(s.find("\"viewer\"")); };
  CHECK(viewer(other.out) != viewer(first.out));
  CHECK(forge.truth().total() == 3);
}
