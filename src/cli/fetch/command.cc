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
#include "cli/fetch/fetch_args.h"
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
  // stays flat whatever the answers' size. With --cache, the Transport still
  // holds an answer within its cache entry bound, to revalidate it and to
  // share it with identical requests in flight.
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

}  // namespace

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

}  // namespace forgemeter::cli
