// forgemeter report [FILE...]: the fleet's hourly sums from every replica's logs.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/errors.h"
#include "cli/number_arg.h"
#include "cli/report/outputs.h"
#include "core/duration_text.h"
#include "core/terminal_text.h"
#include "forgemeter/lane.h"
#include "meter/civil.h"
#include "report/filter.h"
#include "report/output.h"
#include "report/render.h"
#include "report/scanner.h"

namespace forgemeter::cli {

using core_detail::terminal_text;
using meter::hour_text;

namespace {

using namespace report;

constexpr std::size_t kExitWithoutFreeing = 1000;  // hours
// --fail-on-exhausted: a reported hour ran out (distinct from 1, a failure, and 2, usage).
constexpr int kExitExhausted = 3;
constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();
constexpr unsigned kMaxThreads = 1024;

struct ReportArgs {
  std::vector<std::string> files;
  std::string format = "table";
  std::string by = "hour";
  std::string html;
  std::uint64_t budget = 0;
  std::string source_field;
  unsigned threads = 0;
  std::size_t chunk_bytes = 0;
  std::string since, until, now;
  std::vector<std::string> lanes, hosts;
  std::vector<std::uint64_t> installations;
  bool fail_on_exhausted = false;
  bool strict = false, anchored = false, force = false;
  std::string burst_within = "10m";
  bool format_given = false;
  bool html_given = false, source_field_given = false;  // an empty value is no value
};

// The scan frees each piece's sums once they are folded in, and glibc would
// hand that memory back to the kernel at once, only to fault it in again for
// the next piece: on a VM the page faults were a quarter of the report's time.
// Keeping 64 MiB at the heap's top (touched pages only count): the 1 GB bench
// 0.206-0.223 s -> 0.19-0.199 s. Process-wide, so here and not in the library.
void keep_freed_memory() {
#ifdef __GLIBC__
  mallopt(M_TOP_PAD, 64 << 20);
#endif
}

TimeBound time_bound(const std::string& option, const std::string& text) {
  if (auto b = parse_time_bound(text)) return *b;
  throw UsageError(
      fmt::format("{} '{}' is no instant: give 2026-09-30T15:00Z, 2026-09-30T15:00:00.5Z, 2026-09-30T17:00+02:00, "
                  "2026-09-30, or a duration before --now (default: the clock) like -6h or -1h30m",
                  option, text));
}

HourRange hour_range(const ReportArgs& a) {
  HourRange range;
  if (!a.since.empty()) range.since = time_bound("--since", a.since);
  if (!a.until.empty()) range.until = time_bound("--until", a.until);
  if (never_overlaps(range))
    throw UsageError(
        fmt::format("--since {} is not before --until {}: no hour can be reported; give a --since "
                    "earlier than --until",
                    a.since, a.until));
  return range;
}

// The filters as given, for the report they left empty.
std::string filters_text(const ReportArgs& a) {
  std::vector<std::string> parts;
  if (!a.since.empty()) parts.push_back("--since " + a.since);
  if (!a.until.empty()) parts.push_back("--until " + a.until);
  for (const auto& lane : a.lanes) parts.push_back("--lane " + lane);
  for (auto id : a.installations) parts.push_back(fmt::format("--installation {}", id));
  for (const auto& host : a.hosts) parts.push_back("--host " + host);
  return join(parts, " ");
}

// Meter lines were read and the filters kept none: said on stderr, so that
// the table does not claim the logs are empty and JSON and CSV stay what a
// parser expects (no object; the header). Exit 0 (an empty window is no
// failure for cron), 1 under --strict.
void say_filtered_out(const ReportArgs& a, const HourSpan& read) {
  const std::string held =
      *read.first == *read.last
          ? fmt::format("the input's only hour ends {}", hour_text(*read.first))
          : fmt::format("the input's hours end {}-{}", hour_text(*read.first), hour_text(*read.last));
  std::fputs(
      (terminal_text(fmt::format("forgemeter: no hour matches the filters ({}): {}", filters_text(a), held)) + "\n")
          .c_str(),
      stderr);
}

// The files written at the end are opened at the start too: an unwritable
// one fails before the scan, not after the table; one that is an input, or a
// file a report did not write (without --force), is refused (outputs.h).
void check_outputs(const ReportArgs& a, const std::vector<std::string>& inputs) {
  if (a.html_given && a.html.empty()) throw UsageError("--html needs a file name ('-': stdout)");
  if (a.source_field_given && a.source_field.empty()) throw UsageError("--source-field needs a key name");
  check_stdout_output(inputs);
  if (!a.html.empty() && a.html != "-") {
    check_output_file("--html", a.html, inputs, a.force);
    check_writable(a.html);
  }
}

// --strict: what makes the report incomplete or empty, or nullopt.
std::optional<std::string> strict_failure(const ReportData& data) {
  if (data.stats.skipped > 0)
    return fmt::format("{} meter line{} skipped or dropped (see above)", data.stats.skipped,
                       data.stats.skipped == 1 ? " was" : "s were");
  if (data.hours.empty()) return std::string("no hour to report");
  return std::nullopt;
}

ScanOptions scan_options(const ReportArgs& a) {
  ScanOptions so{a.source_field, a.threads, a.chunk_bytes, {}, a.anchored};
  for (const std::string& lane : a.lanes) {  // a name no line can hold would match nothing, silently
    if (lane == "other") continue;
    if (auto why = Lane::check(lane)) throw UsageError(fmt::format("--lane '{}': {}", lane, *why));
  }
  so.filter.lanes = a.lanes;
  so.filter.installations = a.installations;
  for (std::string host : a.hosts) {  // the lines write hosts in lower case
    std::transform(host.begin(), host.end(), host.begin(),
                   [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c); });
    so.filter.hosts.push_back(std::move(host));
  }
  return so;
}

// The report's instant: --now, or the clock (to the second).
Instant report_now(const ReportArgs& a) {
  if (a.now.empty()) return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  const auto b = parse_time_bound(a.now);
  if (!b || !b->at)
    throw UsageError(fmt::format("--now '{}' is no instant: give 2026-09-30T14:35Z or 2026-09-30T14:35:00Z", a.now));
  return std::chrono::floor<std::chrono::seconds>(*b->at);
}

std::chrono::seconds burst_within(const ReportArgs& a) {
  const auto d = core_detail::parse_duration(a.burst_within);
  if (!d || *d > std::chrono::hours(1))
    throw UsageError(fmt::format("--burst-within '{}' is no duration from 0s to 1h (e.g. 10m, 90s)", a.burst_within));
  return std::chrono::duration_cast<std::chrono::seconds>(*d);
}

int run_report(const ReportArgs& a) {
  keep_freed_memory();
  const bool html_to_stdout = a.html == "-";
  if (html_to_stdout && a.format_given && a.format != "html")
    throw UsageError(fmt::format("--html - and --format {} both write to stdout; choose one", a.format));
  const HourRange range = hour_range(a);
  const Instant now = report_now(a);
  const auto burst = burst_within(a);
  const std::vector<std::string> inputs = a.files.empty() ? std::vector<std::string>{"-"} : a.files;
  check_outputs(a, inputs);
  FleetOptions fo;
  if (a.budget > 0) fo.budget = a.budget;
  Fleet fleet(fo);
  Scanner scanner(fleet, scan_options(a));
  scanner.scan_inputs(inputs);
  if (const auto hour = fleet.overflowed())
    throw CommandError(
        fmt::format("the sums of the hour ending {} pass 2^64-1 (18446744073709551615): no real log holds "
                    "that many requests; check the inputs",
                    hour_text(*hour)));
  ReportData data{within(fleet.hours(), range, now), fleet.source_names(), scanner.stats(), now, burst};
  const View view = a.by == "replica" ? View::replica : View::hour;
  const std::string format = html_to_stdout ? "html" : a.format;
  const bool filtered_out = data.hours.empty() && data.stats.read.first;
  if (filtered_out) say_filtered_out(a, data.stats.read);
  if (!filtered_out || format != "table") write_stdout(render_format(data, format, view));
  if (!a.html.empty() && !html_to_stdout) write_file(a.html, render_html(data));
  std::string skipped = render_skipped(data.stats);
  if (!skipped.empty()) std::fputs(skipped.c_str(), stderr);
  int code = kExitOk;
  const auto strict = a.strict ? strict_failure(data) : std::nullopt;
  if (!data.stats.problems.empty()) {
    std::fputs("forgemeter: some input was lost (see above); the report covers what could be read\n", stderr);
    code = kExitFailure;
  } else if (strict) {
    std::fputs(fmt::format("forgemeter: --strict: {}\n", *strict).c_str(), stderr);
    code = kExitFailure;
  } else if (a.fail_on_exhausted &&
             std::any_of(data.hours.begin(), data.hours.end(), [](const FleetHour& h) { return h.exhausted(); })) {
    code = kExitExhausted;
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

void add_filter_options(CLI::App* cmd, ReportArgs& a) {
  cmd->add_option("--since", a.since,
                  "report the hours from this instant on (inclusive): 2026-09-30T15:00Z, 2026-09-30T15:00:00.5Z,\n"
                  "2026-09-30T17:00+02:00 (an offset instead of Z), 2026-09-30, or a duration before --now (default:\n"
                  "the clock), like -6h (the last 6 hours). An hour is kept when any of it is in [--since, --until):\n"
                  "the hour holding --since is kept, one starting at --until is not; --since must be before --until");
  cmd->add_option("--until", a.until, "report the hours before this instant (exclusive); same forms as --since");
  // Each takes one value (repeat the option for more), so the FILEs after it stay files.
  cmd->add_option("--lane", a.lanes,
                  "only these lanes' requests (repeatable); budgets stay whole (every lane spends them) and\n"
                  "answers lines, which name no lane, are left out")
      ->allow_extra_args(false);
  cmd->add_option("--installation", a.installations,
                  "only these installations' requests and budgets (repeatable; 0 = requests without one);\n"
                  "answers lines, which name none, are left out")
      ->allow_extra_args(false)
      ->check(whole_number(0, kMaxU64, "an installation id"));
  cmd->add_option("--host", a.hosts,
                  "only these hosts' requests, budgets and answers (repeatable), e.g. api.github.com")
      ->allow_extra_args(false);
}

void add_projection_options(CLI::App* cmd, ReportArgs& a) {
  cmd->add_option("--now", a.now,
                  "the instant to report at (default: the clock): relative --since/--until count back from it; when\n"
                  "the last hour holds it, that hour is in progress and each installation's core budget is\n"
                  "projected at the rate seen so far");
  cmd->add_option("--burst-within", a.burst_within,
                  "an hourly budget that ran out this soon after its reset is flagged a startup burst (default 10m)");
  cmd->add_flag("--fail-on-exhausted", a.fail_on_exhausted,
                "exit 3 when any reported hour (after the filters) is exhausted: for cron and CI checks");
  cmd->add_flag("--strict", a.strict,
                "exit 1 when any meter line was skipped or dropped, or no hour is left to report (none read, or\n"
                "the filters kept none): for cron and CI checks; wins over --fail-on-exhausted's 3");
}

}  // namespace

void add_report(CLI::App& root, Action& action) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = root.add_subcommand(
      "report",
      "Sum the fleet's meter lines per hour from every replica's logs: requests per lane, host/api and\n"
      "installation, replicas seen, partial hours, and the budgets per installation and resource (core,\n"
      "graphql, search, ...); by replica with --by replica; the hour in progress projected (when will the\n"
      "core budget run out?) and startup bursts flagged. Reads FILEs (plain or .gz), or stdin when none is\n"
      "given or for '-'. Each file is one replica unless --source-field names a JSON key.\n"
      "Malformed meter lines are skipped and reported on stderr (fatal only with --strict). Reads plain\n"
      "text, JSON records, Docker json-file and CRI (kubelet) log files, syslog and journald output.\n"
      "Exit codes: 0 ok; 1 an input could not be read (a truncated .gz: the rest is reported; this wins\n"
      "over 3), or --strict and a line was skipped or no hour is left; 2 usage (also an output that is\n"
      "an input, or an existing file no report wrote, without --force); 3 with --fail-on-exhausted, a\n"
      "reported hour was exhausted.");
  cmd->add_option("FILE", args->files, "log files (plain or gzip); '-' is stdin");
  cmd->add_option("--format", args->format,
                  "stdout format: table (default), json (one object per hour), csv, html (the page)")
      ->check(CLI::IsMember({"table", "json", "csv", "html"}));
  cmd->add_option("--by", args->by, "rows per hour (default) or per hour and replica: which source spent what")
      ->check(CLI::IsMember({"hour", "replica"}));
  cmd->add_option("--html", args->html,
                  "also write a self-contained HTML page with the chart to this file ('-': stdout)")
      ->option_text("FILE");
  cmd->add_option("--budget", args->budget,
                  "the installations' hourly core (REST) limit (default: the ' of N' the budget lines report);\n"
                  "other resources keep theirs")
      ->check(whole_number(1, kMaxU64, "a budget"));
  cmd->add_option("--source-field", args->source_field,
                  "JSON key naming the replica in JSON log records (e.g. pod): the top-level key of that name, else\n"
                  "a dotted path (kubernetes.pod_name); default: one replica per file");
  cmd->add_flag("--anchored", args->anchored,
                "count a meter line only where it starts the log line's message (after a syslog, journald, CRI,\n"
                "kubectl --prefix header, or as a JSON record's log/msg/message), not quoted inside other text");
  cmd->add_flag("--force", args->force,
                "let --html FILE write over an existing file that is not a page a report wrote");
  cmd->add_option("--threads", args->threads,
                  "threads reading each plain file (default 0: the machine's cores); stdin and .gz use one")
      ->check(whole_number(0, kMaxThreads, "a thread count"));
  add_filter_options(cmd, *args);
  add_projection_options(cmd, *args);
  // For tests: split files into tiny pieces so the pieces' edges fall inside lines.
  cmd->add_option("--chunk-bytes", args->chunk_bytes)->group("");
  cmd->callback([args, cmd, &action] {
    args->format_given = cmd->count("--format") > 0;
    args->html_given = cmd->count("--html") > 0;
    args->source_field_given = cmd->count("--source-field") > 0;
    action = [args] { return run_report(*args); };
  });
}

}  // namespace forgemeter::cli
