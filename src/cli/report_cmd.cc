// forgemeter report [FILE...]: the fleet's hourly sums from every replica's logs.
#include <cstdio>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/errors.h"
#include "meter/civil.h"
#include "report/output.h"
#include "report/render.h"
#include "report/scanner.h"

namespace forgemeter::cli {

using meter::hour_text;

namespace {

using namespace report;

constexpr std::size_t kExitWithoutFreeing = 1000;  // hours

struct ReportArgs {
  std::vector<std::string> files;
  std::string format = "table";
  std::string html;
  std::uint64_t budget = 0;
  std::string source_field;
  unsigned threads = 0;
  std::size_t chunk_bytes = 0;
};

int run_report(const ReportArgs& a) {
  FleetOptions fo;
  if (a.budget > 0) fo.budget = a.budget;
  Fleet fleet(fo);
  Scanner scanner(fleet, ScanOptions{a.source_field, a.threads, a.chunk_bytes});
  scanner.scan_inputs(a.files.empty() ? std::vector<std::string>{"-"} : a.files);
  if (const auto hour = fleet.overflowed())
    throw Failure(
        fmt::format("the sums of the hour ending {} pass 2^64-1 (18446744073709551615): no real log holds "
                    "that many requests; check the inputs",
                    hour_text(*hour)));
  ReportData data{fleet.hours(), fleet.source_names(), scanner.stats()};
  write_stdout(render_format(data, a.format));
  if (!a.html.empty()) write_file(a.html, render_html(data));
  std::string skipped = render_skipped(data.stats);
  if (!skipped.empty()) std::fputs(skipped.c_str(), stderr);
  int code = kExitOk;
  if (!data.stats.problems.empty()) {
    std::fputs("forgemeter: some input was lost (see above); the report covers what could be read\n", stderr);
    code = kExitFailure;
  }
  // The sums of a long log are millions of small allocations (a dense 1 GB log:
  // 131,000 hours, ~0.3 s to free one by one), and nothing is left to do but
  // exit: a large report leaves them to the end of the process, with every
  // output flushed first.
  if (data.hours.size() >= kExitWithoutFreeing) {
    std::fflush(nullptr);
    std::_Exit(code);
  }
  return code;
}

}  // namespace

void add_report(CLI::App& root, Action& action) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = root.add_subcommand(
      "report",
      "Sum the fleet's meter lines per hour from every replica's logs: requests per lane, host/api and\n"
      "installation, replicas seen, partial hours, and the budgets per installation and resource (core,\n"
      "graphql, search, ...). Reads FILEs (plain or .gz), or\n"
      "stdin when none is given or for '-'. Each file is one replica unless --source-field names a JSON key.\n"
      "Malformed meter lines are skipped and reported on stderr, never fatal. Exit 0 ok; 1 when an input\n"
      "could not be read (a truncated .gz: the rest is reported); 2 usage.");
  cmd->add_option("FILE", args->files, "log files (plain or gzip); '-' is stdin");
  cmd->add_option("--format", args->format, "stdout format: table (default), json (one object per hour), csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  cmd->add_option("--html", args->html, "also write a self-contained HTML page with the chart to this file");
  cmd->add_option("--budget", args->budget,
                  "the installations' hourly core (REST) limit (default: the ' of N' the budget lines report);\n"
                  "other resources keep theirs")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--source-field", args->source_field,
                  "JSON key naming the replica in JSON log records (e.g. pod); default: one replica per file");
  cmd->add_option("--threads", args->threads,
                  "threads reading each plain file (default: the machine's cores); stdin and .gz use one")
      ->check(CLI::NonNegativeNumber);
  // For tests: split files into tiny pieces so the pieces' edges fall inside lines.
  cmd->add_option("--chunk-bytes", args->chunk_bytes)->group("");
  cmd->callback([args, &action] { action = [args] { return run_report(*args); }; });
}

}  // namespace forgemeter::cli
