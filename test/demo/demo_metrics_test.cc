// forgemeter-demo --metrics-addr: the fleet's meters scraped over HTTP while
// the demo runs — the sweep's requests counted per replica, told apart by the
// `replica` label, and promtool (Debian package prometheus) finding the
// exposition clean (Skipped without it, support/promtool.h). An address that
// is not HOST:PORT, and --linger alone, are refused with exit 2; a build
// without the prometheus component refuses the option itself.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "support/eventually.h"
#include "support/free_port.h"
#include "support/process.h"
#include "support/promtool.h"

using namespace fmtest;

namespace {

const std::string kSweep = "lane=\"merge-gate-sweeper\"";

// The replicas whose forgemeter_requests_total of the sweep's lane is above 0 in `text`.
std::set<std::string> sweeping_replicas(const std::string& text) {
  std::set<std::string> out;
  std::size_t at = 0;
  for (std::size_t end; (end = text.find('\n', at)) != std::string::npos; at = end + 1) {
    const std::string line = text.substr(at, end - at);
    if (line.rfind("forgemeter_requests_total{", 0) != 0 || line.find(kSweep) == std::string::npos) continue;
    const std::size_t r = line.find("replica=\"");
    if (r == std::string::npos || line.substr(line.rfind(' ') + 1) == "0") continue;
    out.insert(line.substr(r + 9, line.find('"', r + 9) - r - 9));
  }
  return out;
}

}  // namespace

TEST_CASE("demo --metrics-addr: each replica's sweep on /metrics while it runs, labelled replica; promtool clean") {
  const std::string curl = find_on_path("curl");
  REQUIRE_MESSAGE(!curl.empty(), "curl on PATH scrapes the demo");
  const int port = free_loopback_port();
  REQUIRE(port > 0);
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/metrics";
  // 1 simulated hour at 1200x: about 3 s of sweeping to scrape in.
  LineChild demo({FORGEMETER_DEMO_BIN, "--replicas", "3", "--hours", "1", "--speed", "1200", "--metrics-addr",
                  "127.0.0.1:" + std::to_string(port)});
  const std::string said = demo.await_line([](const std::string& l) { return l.find("/metrics") != std::string::npos; },
                                           std::chrono::seconds(20));
  CHECK(said == "the fleet's meters (label replica): " + url);

  std::string text;
  const bool all_sweeping = eventually(
      [&] {
        text = run_process({curl, "-sf", "--max-time", "5", url}).out;
        return sweeping_replicas(text) == std::set<std::string>{"web-0", "web-1", "web-2"};
      },
      std::chrono::seconds(20));
  CAPTURE(text);
  CHECK(all_sweeping);
  CHECK(text.find("# TYPE forgemeter_requests_total counter\n") != std::string::npos);
  CHECK(text.find("# TYPE forgemeter_requests_total") == text.rfind("# TYPE forgemeter_requests_total"));  // once

  CHECK(promtool_check_metrics(text) == "");
  CHECK(demo.wait_exit(std::chrono::seconds(60)) == 0);
}

TEST_CASE("demo: --metrics-addr not HOST:PORT, or --linger without it: our words, exit 2, nothing run") {
  for (const auto& [args, said] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--metrics-addr", "9464"}, "forgemeter-demo: --metrics-addr: '9464': no port; give HOST:PORT"},
           {{"--metrics-addr", ":9464"}, "forgemeter-demo: --metrics-addr: ':9464': no host"},
           {{"--metrics-addr", "127.0.0.1:99999"},
            "forgemeter-demo: --metrics-addr: '127.0.0.1:99999': the port must be a number from 0 (any free port) "
            "to 65535"},
           {{"--linger", "30"}, "forgemeter-demo: --linger: goes with --metrics-addr"},
       }) {
    CAPTURE(args);
    std::vector<std::string> argv{FORGEMETER_DEMO_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto r = run_process(argv);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind(said, 0) == 0);
    CHECK(r.out.empty());
  }
}
