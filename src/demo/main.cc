// forgemeter-demo — the fleet demo as a program of its own (see demo.h).
// Exit codes: 0 the report agreed with the forge, 1 it did not (or a failure), 2 usage.
#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/number_arg.h"
#include "cli/program.h"
#include "demo/demo.h"
#include "demo/fleet_metrics.h"
#include "forgemeter/version.h"
#include "serve/listen_address.h"

namespace {

using forgemeter::cli::decimal_number;
using forgemeter::cli::whole_number;

constexpr std::uint64_t kMaxReplicas = 50;

// --metrics-addr: HOST:PORT, and a build that can serve it; --linger only with it.
void check_metrics_options(const forgemeter::demo::DemoArgs& a, bool lingers) {
  if (lingers && a.metrics_addr.empty())
    throw CLI::ValidationError("--linger", "goes with --metrics-addr (it keeps /metrics served); give both");
  if (a.metrics_addr.empty()) return;
  if (const auto parsed = forgemeter::serve::parse_listen_address(a.metrics_addr);
      const auto* why = std::get_if<std::string>(&parsed))
    throw CLI::ValidationError(
        "--metrics-addr",
        fmt::format("'{}': {}; give HOST:PORT (e.g. 127.0.0.1:9464) or unix:PATH", a.metrics_addr, *why));
}

// The options as parsed, and the two whose presence the checks ask about.
struct Options {
  forgemeter::demo::DemoArgs args;
  int lose_log = -1;
  CLI::Option* lose = nullptr;
  CLI::Option* linger = nullptr;
};

void add_options(CLI::App& app, Options& o) {
  app.set_version_flag("-V,--version", std::string("forgemeter-demo ") + std::string(forgemeter::version()),
                       "print the version and exit");
  app.add_option("--replicas", o.args.replicas, "replicas (default 10)")
      ->check(whole_number(1, kMaxReplicas, "a replica count"));
  app.add_option("--hours", o.args.hours,
                 "simulated hours: 1 the incident only, 2 then the lane elected, 3 then paced, 4 then each replica "
                 "through a forgemeter proxy (default 4)")
      ->check(whole_number(1, 4, "an hour count"));
  app.add_option("--speed", o.args.speed, "simulated seconds per real second (default 600: four hours in 24 s)")
      ->check(decimal_number(10, 5000, "a speed"));
  app.add_option("--html", o.args.html,
                 "also write the fleet report page (HTML with the chart) to this file ('-': stdout, and the demo's "
                 "own lines go to stderr)")
      ->option_text("FILE");
  app.add_option("--logs", o.args.logs,
                 "also write each replica's log (its meter lines) to DIR/<replica>.log: 'forgemeter report DIR/*.log' "
                 "then prints the demo's table")
      ->option_text("DIR");
  app.add_option("--forge-counts", o.args.forge_counts,
                 "also write what the forge itself counted (requests per lane, per hour) to this file, as JSON ('-': "
                 "stdout, as --html)")
      ->option_text("FILE");
  o.lose = app.add_option(
                  "--lose-log", o.lose_log,
                  "leave replica N's lines out of the report, as if its log were lost: shows the report-vs-forge check "
                  "failing (exit 1)")
               ->option_text("N")
               ->check(whole_number(0, kMaxReplicas - 1, "a replica number"));
  app.add_option("--metrics-addr", o.args.metrics_addr,
                 "serve the fleet's meters on GET /metrics (Prometheus text, one series per replica by the label\n"
                 "'replica') at HOST:PORT while the demo runs, e.g. 127.0.0.1:9464 (docs/demo.md)")
      ->option_text("HOST:PORT");
  o.linger = app.add_option("--linger", o.args.linger,
                            "with --metrics-addr: go on serving the final numbers this many seconds once the demo\n"
                            "has ended, so a Prometheus scraping every 15 s gets them (default 0)")
                 ->option_text("SECONDS")
                 ->check(whole_number(0, 3600, "a number of seconds"));
}

// What the parser cannot check: options that go together, or exclude each other.
void check_options(Options& o) {
  forgemeter::demo::DemoArgs& a = o.args;
  check_metrics_options(a, o.linger->count() > 0);
  if (o.lose->count() > 0) a.lose_log = o.lose_log;
  if (a.html == "-" && a.forge_counts == "-")
    throw CLI::ValidationError("--forge-counts", "'-' is stdout, which --html - already takes; give one a file");
  if (a.logs == "-")
    throw CLI::ValidationError("--logs", "takes a directory (one log per replica), not '-'; e.g. --logs /tmp/fleet");
  if (a.lose_log && *a.lose_log >= a.replicas)
    throw CLI::ValidationError(
        "--lose-log", fmt::format("no replica {}: there are {} (0-{})", *a.lose_log, a.replicas, a.replicas - 1));
}

int run(int argc, char** argv) {
  CLI::App app{
      "forgemeter-demo: replay the incident on the loopback forge, in seconds. R replicas, each with its own\n"
      "Meter and Transport, sweep a merge gate over real HTTP on an accelerated clock. Hour 1 every replica\n"
      "sweeps and the budget runs out; hour 2 the sweep's lane is elected through a lease; hour 3 every replica\n"
      "sweeps again, unelected but paced to keep 5 % at the reset. Prints each hour's fleet line as the hour\n"
      "ends, then the fleet report beside the forge's own counts (exit 1 if they differ, or if hour 2 or 3 ran\n"
      "out), when the budget ran out, the hour 1 / hour 2 cost and hour 3's paced spend.",
      "forgemeter-demo"};
  Options o;
  add_options(app, o);
  forgemeter::cli::Program program;
  program.check = [&] { check_options(o); };
  program.run = [&] { return forgemeter::demo::run_demo(o.args); };
  return forgemeter::cli::run_program(app, argc, argv, program);
}

}  // namespace

int main(int argc, char** argv) { return forgemeter::cli::run_main("forgemeter-demo", run, argc, argv); }
