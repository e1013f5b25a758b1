// forgemeter fetch: metered requests through the library's Transport, with
// curl's options where the names are curl's (output.h, verbose.h,
// exit.h), or one summary line per request (--urls, --parallel, --summary).
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/errors.h"
#include "cli/fetch/answer_writer.h"
#include "cli/fetch/etag.h"
#include "cli/fetch/exit.h"
#include "cli/fetch/in_flight.h"
#include "cli/fetch/meter_log.h"
#include "cli/fetch/output.h"
#include "cli/fetch/requests.h"
#include "cli/fetch/verbose.h"
#include "cli/number_arg.h"
#include "core/shown_url.h"
#include "core/terminal_text.h"
#include "forgemeter/transport.h"
#include "supervise/signal_watch.h"

namespace forgemeter::cli {

using core_detail::shown_url;
using core_detail::terminal_text;
using Steady = std::chrono::steady_clock;

namespace {

struct FetchArgs {
  RequestArgs request;
  std::string cacert, urls_file, output, write_out, max_time, connect_timeout, meter_log, dump_header;
  std::vector<std::string> resolve, urls, data, data_binary, data_raw, json;
  std::optional<std::string> user_agent;
  std::string etag_compare, etag_save;  // fetch/etag.h
  int max_redirs = 10, retry = 0, parallel = 1;
  bool include = false, silent = false, show_error = false, verbose = false, fail = false, summary = false;
  bool fail_with_body = false, compressed = false;
  bool location = false;  // -L: accepted for curl's sake; redirects are always followed
  bool cache = false;     // --cache: the Transport's conditional cache, for the run
  bool pace = false;      // --pace: --lane paced on --installation's budget

  // One line per request instead of each answer.
  bool summary_mode() const { return summary || !urls_file.empty() || parallel > 1; }
};

// The curl options that write one URL's answer make no sense beside the summary lines.
void check_mode(const FetchArgs& a, std::size_t requests) {
  if (a.summary_mode()) {
    for (const auto& [given, name] :
         {std::pair{!a.output.empty(), "-o"}, std::pair{a.include, "-i"}, std::pair{!a.write_out.empty(), "-w"},
          std::pair{a.verbose, "-v"}, std::pair{!a.dump_header.empty(), "-D"},
          std::pair{a.fail_with_body, "--fail-with-body"}})
      if (given)
        throw UsageError(
            fmt::format("{} writes each answer; with --urls, --parallel or --summary fetch prints one "
                        "summary line per request instead: drop one or the other",
                        name));
  } else if (!a.output.empty() && a.output != "-" && requests > 1) {
    throw UsageError("-o FILE takes the answer of one URL; give one URL, or use --summary for several");
  }
  if (a.fail && a.fail_with_body)  // as curl
    throw UsageError("-f/--fail and --fail-with-body: choose one (--fail-with-body writes the answer too)");
}

std::string describe(const Request& req, const Response& res, Steady::duration took) {
  std::string hops;
  for (const Hop& h : res.hops)
    hops += fmt::format("{}{} {}", hops.empty() ? "" : " -> ", h.host,
                        h.status == kNoAnswer ? std::string("none") : std::to_string(h.status));
  auto ms = static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(took).count()) / 1000.0;
  std::string line = fmt::format("{} {} {} {:.1f}ms hops={} [{}]",
                                 res.status == kNoAnswer ? std::string("---") : std::to_string(res.status), req.method,
                                 req.url, ms, res.hops.size(), hops);
  if (res.error) line += fmt::format(" error={}: {}", to_string(res.error.code), res.error.message);
  if (res.revalidated || res.coalesced) line += res.revalidated ? " cache=revalidated" : " cache=coalesced";
  return shown_url(line);  // hosts and messages come from a forge's redirects; a URL's password is ***
}

// Without -s, or with -sS: the error line on stderr.
void complain(const FetchArgs& a, const std::string& line) {
  if (!a.silent || a.show_error) write_all(stderr, line + "\n");
}

// --urls, --parallel, --summary: a line per finished request, as it finishes
// (also into a file or pipe). Exit 1 when an exchange failed, else 22 when
// -f and an answer was an HTTP error, else 0. Once stdout takes no more (a
// closed pipe, a full disk), no further request is sent: 23.
int run_summary(const FetchArgs& a, std::vector<Request>& requests, Transport& transport, InFlight& in_flight,
                std::mutex& out_mu) {
  // No summary line shows a body: each is dropped as it comes, so memory
  // stays flat whatever the answers' size. But --cache with --parallel: an
  // identical request in flight is answered with a copy of the whole answer
  // (a streamed one cannot be shared), so there the answers are kept.
  if (!(a.cache && a.parallel > 1))
    for (Request& r : requests) r.on_body = [](const BodyChunk&) noexcept { return true; };
  std::atomic<std::size_t> next{0}, failed{0}, http_errors{0};
  std::atomic<bool> unwritten{false};
  auto worker = [&]() noexcept {
    for (std::size_t i = next++; i < requests.size(); i = next++) {
      try {
        const auto t0 = Steady::now();
        const bool sent = in_flight.perform(transport, requests[i], [&](const Response& res) {
          const std::string line = describe(requests[i], res, Steady::now() - t0);
          if (!res.ok()) ++failed;
          if (res.status >= 400) ++http_errors;
          std::lock_guard lock(out_mu);
          if (!write_all(stdout, line + "\n") && !unwritten.exchange(true)) next = requests.size();
        });
        if (!sent) return;               // stopping: a signal came
      } catch (const std::exception&) {  // out of memory: this request is not described
        ++failed;
      }
    }
  };
  {
    std::vector<std::jthread> pool;
    for (int i = 1; i < a.parallel; ++i) pool.emplace_back(worker);
    worker();
  }
  if (unwritten) {
    complain(a, fmt::format("forgemeter: ({}) cannot write the summary lines to stdout; no further request sent",
                            kExitWriteError));
    return kExitWriteError;
  }
  if (failed > 0) return kExitFailure;
  return a.fail && http_errors > 0 ? kExitHttpError : kExitOk;
}

// As curl: each URL in turn, -D's header block, its answer to stdout or -o,
// -v's hops on stderr, -w after it. The exit code is the first failed URL's.
// Once an output takes no more (a closed pipe, a full disk), no further URL
// is requested (the answers it would write have nowhere to go).
int run_curl_like(const FetchArgs& a, const std::vector<Request>& requests, Transport& transport,
                  const std::optional<WriteOut>& write_out, InFlight& in_flight, std::mutex& out_mu,
                  EtagSave* etag_save) {
  CurlOutputs out{AnswerOut(a.output), AnswerOut(a.dump_header), write_out, etag_save};
  const AnswerFlags flags{.include = a.include,
                          .verbose = a.verbose,
                          .fail = a.fail,
                          .fail_with_body = a.fail_with_body,
                          .output = a.output,
                          .dump_header = a.dump_header,
                          .complain = [&a](const std::string& line) { complain(a, line); }};
  int exit_code = kExitOk;
  bool unwritten = false;
  for (const Request& one : requests) {
    AnswerWriter writer(flags, out);
    Request req = one;  // its body streamed to the output as it comes: memory stays flat
    req.on_body = [&writer, &out_mu](const BodyChunk& piece) {
      std::lock_guard lock(out_mu);
      return writer.take(piece);
    };
    const auto t0 = Steady::now();
    const bool sent = in_flight.perform(transport, std::move(req), [&](const Response& res) {
      const Fetched f{one, res, Steady::now() - t0, fetch_exit_code(res, a.fail || a.fail_with_body)};
      std::lock_guard lock(out_mu);
      const int code = writer.finish(f, unwritten);
      if (exit_code == kExitOk) exit_code = code;
    });
    if (!sent || unwritten) break;
  }
  return exit_code;
}

// --cache: what the run's cache may hold (each answer at most the Transport's default per-entry bound).
constexpr std::size_t kFetchCacheBytes = std::size_t{64} << 20;

// --pace: what every process pacing the budget leaves of it at the reset.
constexpr double kFetchPaceKeep = 0.05;

TransportOptions transport_options(const FetchArgs& a, const Request& base, Meter& meter) {
  TransportOptions to;
  to.meter = &meter;
  to.resolve = a.resolve;
  to.ca_file = a.cacert;
  to.max_redirects = a.max_redirs;
  to.rate_limits.retry.enabled = a.retry > 0;
  to.rate_limits.retry.max_retries = a.retry;
  if (a.cache) to.cache.max_bytes = kFetchCacheBytes;
  if (a.pace) {
    if (!base.lane || base.installation == 0)
      throw UsageError("--pace paces one lane on one installation's budget: give --lane and --installation");
    to.rate_limits.pacing.lanes = {
        {.lane = *base.lane, .installation = base.installation, .keep_fraction = kFetchPaceKeep}};
  }
  if (a.user_agent) {
    check_header("-A", "User-Agent", *a.user_agent);
    to.user_agent = *a.user_agent;
  }
  if (removes_header(a.request, "User-Agent")) to.user_agent.clear();  // -H 'User-Agent:', as curl: none sent
  to.decompress = a.compressed;
  if (!a.max_time.empty()) to.timeout = std::chrono::milliseconds::zero();  // -m is the whole request's (run_fetch)
  if (!a.connect_timeout.empty())
    to.connect_timeout = seconds_or_duration(a.connect_timeout, "--connect-timeout", false);
  return to;
}

// --etag-compare adds its header to the one request; --etag-save's file (not
// yet created) is returned. One URL, as curl's.
std::unique_ptr<EtagSave> etag_options(const FetchArgs& a, std::vector<Request>& requests) {
  if (a.etag_compare.empty() && a.etag_save.empty()) return nullptr;
  if (requests.size() != 1 || a.summary_mode())
    throw UsageError(
        "--etag-compare and --etag-save take one URL, as curl's: not several, --urls, --parallel or --summary");
  if (!a.etag_compare.empty()) {
    std::string warning;
    requests.front().headers.push_back(etag_compare_header(a.etag_compare, warning));
    if (!warning.empty()) complain(a, warning);
  }
  return a.etag_save.empty() ? nullptr : std::make_unique<EtagSave>(a.etag_save);
}

// The requests a run sends: each URL named, then --urls FILE's, each under -m.
std::vector<Request> fetch_requests(const FetchArgs& a, const Request& base, std::chrono::milliseconds max_time) {
  std::vector<Request> requests = requests_for(a.urls, base);
  if (!a.urls_file.empty())
    for (auto& r : read_url_file(a.urls_file, base, max_time)) requests.push_back(std::move(r));
  if (requests.empty()) throw UsageError("no URL given (name URLs or --urls FILE)");
  if (!a.max_time.empty())
    for (Request& r : requests) r.total_timeout = max_time;
  return requests;
}

// After the run: each budget that could not be paced said once, the
// meter's lines written, and a failure to write them the run's failure.
int finish_run(const FetchArgs& a, int code, std::unique_ptr<Transport>& transport, Meter& meter,
               const MeterLog& meter_log) {
  for (const UnpacedBudget& u : transport->figures().unpaced)  // once a budget, after its answers
    complain(a, fmt::format("forgemeter: --pace: installation {}'s {} budget was not paced: its answers carry no "
                            "rate-limit headers",
                            u.installation, u.resource));
  transport.reset();
  meter.flush();
  if (const auto why = meter_log.problem()) {
    complain(a, "forgemeter: " + *why);
    return code == kExitOk ? kExitFailure : code;
  }
  return code;
}

int run_fetch(const FetchArgs& a) {
  // As curl: a reader that went away (`fetch URL | head -c 10`) is a write
  // error (exit 23, the meter's lines still written), not a silent death.
  std::signal(SIGPIPE, SIG_IGN);
  // As curl's -m: each request's every hop, retry and wait; and the reading of the files it sends.
  const auto max_time =
      a.max_time.empty() ? std::chrono::milliseconds::zero() : seconds_or_duration(a.max_time, "-m/--max-time", true);
  const Request base = base_request(a.request, max_time);
  std::vector<Request> requests = fetch_requests(a, base, max_time);
  check_mode(a, requests.size());
  const std::unique_ptr<EtagSave> etag_save = etag_options(a, requests);
  if (etag_save && !etag_save->open()) {  // as curl: before anything is sent
    complain(a, terminal_text(fmt::format("forgemeter: ({}) cannot create the --etag-save file '{}'", kExitWriteError,
                                          etag_save->path())));
    return kExitWriteError;
  }
  std::optional<WriteOut> write_out;
  if (!a.write_out.empty()) write_out.emplace(WriteOut::from_argument(a.write_out));

  const MeterLog meter_log(a.meter_log);
  Meter meter({.sink = meter_log.sink()});  // its lines at its flush (the end of this function)
  std::unique_ptr<Transport> transport;
  try {
    transport = std::make_unique<Transport>(transport_options(a, base, meter));
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  std::mutex out_mu;
  InFlight in_flight;
  // SIGINT/SIGTERM/SIGHUP: the requests in flight end (each attempt counted,
  // `none` when no answer came: bounded by libcurl's progress calls, about a
  // second), then what was written so far and what the meter counted (its
  // hour marked `until …, stopping`) are out, then 128 + the signal.
  supervise::SignalWatch signals([&](int sig) {
    in_flight.stop(std::chrono::seconds(3));
    std::lock_guard lock(out_mu);
    std::fflush(stdout);
    meter.flush();
    std::fflush(stderr);
    ::_exit(128 + sig);
  });
  const int code = a.summary_mode()
                       ? run_summary(a, requests, *transport, in_flight, out_mu)
                       : run_curl_like(a, requests, *transport, write_out, in_flight, out_mu, etag_save.get());
  in_flight.park_if_stopped();  // a signal ended the run: its thread writes the meter's lines and exits
  std::fflush(stdout);
  return finish_run(a, code, transport, meter, meter_log);
}

constexpr const char* kFetchHelp =
    "Send metered requests through forgemeter's Transport, as curl does where the names are curl's.\n"
    "Each URL in turn: the final answer's body raw to stdout (or -o FILE; -o - is stdout), streamed as it\n"
    "comes (memory stays flat), with -i its status line and header fields first (raw too), -w's text after\n"
    "it. -v shows each hop on stderr (method,\n"
    "URL, host, status; credential values as ***; control bytes escaped). A URL's password is *** wherever it is\n"
    "shown. Redirects are always followed\n"
    "(up to --max-redirs; -L is accepted). Timeouts: -m for each URL's whole request, its redirects and\n"
    "retries included (default: 60s a hop; 0: none), --connect-timeout (default 10s), in seconds (5, 2.5)\n"
    "or as 500ms, 1m30s.\n"
    "--urls FILE, --parallel N or --summary: one line per request on stdout instead,\n"
    "  <status> <METHOD> <URL> <ms>ms hops=<n> [<host> <status> -> ...][ error=<code>: <message>]"
    "[ cache=revalidated|coalesced]\n"
    "The meter's hourly lines go to stderr at exit, -s or not (--meter-log FILE appends them to FILE).\n"
    "Exit codes (curl's where they overlap): 0 ok (any HTTP status, without -f); 22 -f and a status >= 400;\n"
    "3 unusable URL; 6 host not resolved; 7 connection failed; 28 timeout; 35 TLS failed; 47 too many\n"
    "redirects; 56 connection broke; 23 an output could not be written (no further URL is then requested);\n"
    "1 anything else (with --urls, --parallel or --summary: an exchange failed; --meter-log could not be\n"
    "written); 2 usage (nothing sent); 130/143/129 SIGINT/SIGTERM/SIGHUP (after writing what was finished\n"
    "and the meter's lines). Several URLs: the first failure's code.\n"
    "An option given twice: the last one wins, as with curl (-H, -d and its kind, --resolve and URLs add up).";

// As curl: an option that takes one value takes the last one given (CLI11
// would refuse a second); the repeatable ones (-H, -d, --resolve, URLs) add up.
void last_wins(CLI::App& cmd) {
  for (CLI::Option* opt : cmd.get_options())
    if (opt->get_items_expected_max() == 1 && opt->get_type_size_max() == 1)
      opt->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

// The body options' values in the order they were given, as curl joins them.
std::vector<DataArg> data_in_order(const CLI::App& cmd,
                                   std::initializer_list<std::pair<const CLI::Option*, DataArg::Kind>> kinds) {
  std::vector<DataArg> out;
  std::map<const CLI::Option*, std::size_t> used;  // values taken per option so far
  for (const CLI::Option* opt : cmd.parse_order())
    for (const auto& [which, kind] : kinds)
      if (opt == which && used[opt] < opt->results().size()) out.push_back({kind, opt->results()[used[opt]++]});
  return out;
}

}  // namespace

// One call per option, curl's order; over the 60-line bound until the
// options are grouped. NOLINTNEXTLINE(readability-function-size)
void add_fetch(CLI::App& root, Action& action) {
  auto a = std::make_shared<FetchArgs>();
  CLI::App* cmd = root.add_subcommand("fetch", kFetchHelp);
  RequestArgs& r = a->request;
  cmd->add_option("URL", a->urls, "URLs to request");
  cmd->add_option("-X,--request", r.method, "method (default GET, or POST with -d)");
  cmd->add_option("-H,--header", r.headers,
                  "extra header 'Name: value' (repeatable); 'Name:' removes it, 'Name;' sends it empty")
      ->allow_extra_args(false);
  auto* data = cmd->add_option("-d,--data", a->data,
                               "request body, POST unless -X says otherwise; @FILE reads FILE (@-: stdin) without "
                               "its CR and LF; several are joined with '&'")
                   ->allow_extra_args(false);
  auto* binary =
      cmd->add_option("--data-binary", a->data_binary, "as -d, but @FILE is sent as it is")->allow_extra_args(false);
  auto* raw =
      cmd->add_option("--data-raw", a->data_raw, "as -d, but a leading @ is sent as it is")->allow_extra_args(false);
  auto* json = cmd->add_option("--json", a->json,
                               "as --data-binary, with Content-Type and Accept: application/json (-H overrides)")
                   ->allow_extra_args(false);
  cmd->add_option("-A,--user-agent", a->user_agent, "the User-Agent header (default: forgemeter)");
  cmd->add_option("-D,--dump-header", a->dump_header,
                  "write the final answer's status line and header fields to FILE ('-': stdout)");
  cmd->add_flag("--fail-with-body", a->fail_with_body, "as -f, but the answer is written all the same");
  cmd->add_flag("--compressed", a->compressed,
                "ask for a compressed answer (gzip, deflate, br, zstd) and decompress it");
  cmd->add_option("--lane", r.lane, "lane to count the requests under (default: other)");
  cmd->add_option("--installation", r.installation, "GitHub App installation id the requests spend (default: none)");
  cmd->add_option("--bearer-file", r.bearer_file,
                  "file holding the bearer token (sent to the request's own origin only; warned about when group or "
                  "others may read it); -H 'Authorization: ...' wins over it, as curl's -H");
  cmd->add_option("-o,--output", a->output, "write the answer to FILE instead of stdout ('-': stdout)");
  cmd->add_flag("-i,--include", a->include, "the final answer's status line and header fields before its body");
  cmd->add_flag("-s,--silent", a->silent, "no error message on stderr (the exit code says it; the meter's lines stay)");
  cmd->add_flag("-S,--show-error", a->show_error, "with -s: the error message all the same");
  cmd->add_flag("-v,--verbose", a->verbose, "each hop on stderr: request line, host, headers sent, status");
  cmd->add_flag("-f,--fail", a->fail, "exit 22, without writing the answer, when its status is 400 or more");
  cmd->add_option("-w,--write-out", a->write_out,
                  "after each answer, on stdout: %{http_code} %{num_redirects} %{time_total} %{url_effective} "
                  "%{url} %{method} %{size_download} %{exitcode} %{errormsg} %header{NAME}, %%, \\n \\r \\t \\\\; an "
                  "unknown variable is a usage error; @FILE reads the format from FILE (@-: stdin)");
  cmd->add_option("-m,--max-time", a->max_time,
                  "time allowed for each URL, redirects and retries included: 5, 2.5 (seconds), 500ms, 1m30s; 0: none");
  cmd->add_option("--connect-timeout", a->connect_timeout, "time allowed to connect: 5, 2.5 (seconds), 500ms");
  cmd->add_flag("-L,--location", a->location, "accepted for curl's sake: redirects are always followed");
  cmd->add_option("--resolve", a->resolve, "host:port:address, like curl (repeatable)")->allow_extra_args(false);
  cmd->add_option("--cacert", a->cacert, "PEM file of CAs to verify TLS against instead of the system's");
  cmd->add_option("--max-redirs", a->max_redirs, "redirect hops to follow (default 10)")
      ->check(whole_number(0, 50, "a redirect count"));
  cmd->add_option("--retry", a->retry,
                  "retries per hop for connection failures, 502/503/504 and secondary rate limits (default 0)")
      ->check(whole_number(0, 10, "a retry count"));
  cmd->add_option("--urls", a->urls_file,
                  "file of requests ('-': stdin), one a line: METHOD URL [lane=L] [installation=N]");
  cmd->add_option("--parallel", a->parallel, "requests in flight at once (default 1)")
      ->check(whole_number(1, 64, "a number of requests in flight"));
  cmd->add_flag("--summary", a->summary, "one summary line per request (as --urls and --parallel print)");
  cmd->add_flag("--cache", a->cache,
                "keep answers for the run (64 MiB): a repeated GET is revalidated (a 304 is free on GitHub), "
                "identical ones in flight at once share one request");
  cmd->add_flag("--pace", a->pace,
                "pace the requests of --lane on --installation's budget: every process pacing it, knowing nothing "
                "of the others, spreads it to the reset and leaves 5% (a request waits, uncounted, for its turn)");
  cmd->add_option("--etag-compare", a->etag_compare,
                  "send If-None-Match with the ETag on FILE's first line (empty or missing: \"\"), as curl; one URL");
  cmd->add_option("--etag-save", a->etag_save,
                  "write a 2xx/3xx answer's ETag to FILE (created first; kept when the answer has none), as curl; "
                  "one URL");
  cmd->add_option("--meter-log", a->meter_log,
                  "append the meter's hourly lines to FILE instead of stderr ('-': stdout)");
  last_wins(*cmd);
  cmd->callback([a, cmd, data, binary, raw, json, &action] {
    a->request.data = data_in_order(*cmd, {{data, DataArg::Kind::data},
                                           {binary, DataArg::Kind::binary},
                                           {raw, DataArg::Kind::raw},
                                           {json, DataArg::Kind::json}});
    action = [a] { return run_fetch(*a); };
  });
}

}  // namespace forgemeter::cli
