// forgemeter fetch's command line: curl's option names and meanings where
// they are curl's, a value given twice the last one (as curl), the body
// options joined in the order given.
#include <map>
#include <memory>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/fetch/fetch_args.h"
#include "cli/number_arg.h"

namespace forgemeter::cli {
namespace {

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

// The body options, whose values are joined in the order given.
struct BodyOptions {
  CLI::Option *data = nullptr, *binary = nullptr, *raw = nullptr, *json = nullptr;
};

// What is sent: the URLs, method, headers, body, lane and credential.
BodyOptions add_request_options(CLI::App& cmd, FetchArgs& a) {
  RequestArgs& r = a.request;
  BodyOptions body;
  cmd.add_option("URL", a.urls, "URLs to request");
  cmd.add_option("-X,--request", r.method, "method (default GET, or POST with -d)");
  cmd.add_option("-H,--header", r.headers,
                 "extra header 'Name: value' (repeatable); 'Name:' removes it, 'Name;' sends it empty")
      ->allow_extra_args(false);
  body.data = cmd.add_option("-d,--data", a.data,
                             "request body, POST unless -X says otherwise; @FILE reads FILE (@-: stdin) without "
                             "its CR and LF; several are joined with '&'")
                  ->allow_extra_args(false);
  body.binary =
      cmd.add_option("--data-binary", a.data_binary, "as -d, but @FILE is sent as it is")->allow_extra_args(false);
  body.raw =
      cmd.add_option("--data-raw", a.data_raw, "as -d, but a leading @ is sent as it is")->allow_extra_args(false);
  body.json = cmd.add_option("--json", a.json,
                             "as --data-binary, with Content-Type and Accept: application/json (-H overrides)")
                  ->allow_extra_args(false);
  cmd.add_option("-A,--user-agent", a.user_agent, "the User-Agent header (default: forgemeter)");
  cmd.add_flag("--compressed", a.compressed, "ask for a compressed answer (gzip, deflate, br, zstd) and decompress it");
  cmd.add_option("--lane", r.lane, "lane to count the requests under (default: other)");
  cmd.add_option("--installation", r.installation, "GitHub App installation id the requests spend (default: none)");
  cmd.add_option("--bearer-file", r.bearer_file,
                 "file holding the bearer token (sent to the request's own origin only; warned about when group or "
                 "others may read it); -H 'Authorization: ...' wins over it, as curl's -H");
  return body;
}

// What is written, and how long a request may take.
void add_output_options(CLI::App& cmd, FetchArgs& a) {
  cmd.add_option("-D,--dump-header", a.dump_header,
                 "write the final answer's status line and header fields to FILE ('-': stdout)");
  cmd.add_flag("--fail-with-body", a.fail_with_body, "as -f, but the answer is written all the same");
  cmd.add_option("-o,--output", a.output, "write the answer to FILE instead of stdout ('-': stdout)");
  cmd.add_flag("-i,--include", a.include, "the final answer's status line and header fields before its body");
  cmd.add_flag("-s,--silent", a.silent, "no error message on stderr (the exit code says it; the meter's lines stay)");
  cmd.add_flag("-S,--show-error", a.show_error, "with -s: the error message all the same");
  cmd.add_flag("-v,--verbose", a.verbose, "each hop on stderr: request line, host, headers sent, status");
  cmd.add_flag("-f,--fail", a.fail, "exit 22, without writing the answer, when its status is 400 or more");
  cmd.add_option("-w,--write-out", a.write_out,
                 "after each answer, on stdout: %{http_code} %{num_redirects} %{time_total} %{url_effective} "
                 "%{url} %{method} %{size_download} %{exitcode} %{errormsg} %header{NAME}, %%, \\n \\r \\t \\\\; an "
                 "unknown variable is a usage error; @FILE reads the format from FILE (@-: stdin)");
  cmd.add_option("-m,--max-time", a.max_time,
                 "time allowed for each URL, redirects and retries included: 5, 2.5 (seconds), 500ms, 1m30s; 0: none");
  cmd.add_option("--connect-timeout", a.connect_timeout, "time allowed to connect: 5, 2.5 (seconds), 500ms");
}

// Redirects, retries, TLS, several requests, the cache, pacing, ETags, lines.
void add_run_options(CLI::App& cmd, FetchArgs& a) {
  cmd.add_flag("-L,--location", a.location, "accepted for curl's sake: redirects are always followed");
  cmd.add_option("--resolve", a.resolve, "host:port:address, like curl (repeatable)")->allow_extra_args(false);
  cmd.add_option("--cacert", a.cacert, "PEM file of CAs to verify TLS against instead of the system's");
  cmd.add_option("--max-redirs", a.max_redirs, "redirect hops to follow (default 10)")
      ->check(whole_number(0, 50, "a redirect count"));
  cmd.add_option("--retry", a.retry,
                 "retries per hop for connection failures, 502/503/504 and secondary rate limits (default 0)")
      ->check(whole_number(0, 10, "a retry count"));
  cmd.add_option("--urls", a.urls_file,
                 "file of requests ('-': stdin), one a line: METHOD URL [lane=L] [installation=N]");
  cmd.add_option("--parallel", a.parallel, "requests in flight at once (default 1)")
      ->check(whole_number(1, 64, "a number of requests in flight"));
  cmd.add_flag("--summary", a.summary, "one summary line per request (as --urls and --parallel print)");
  cmd.add_flag("--cache", a.cache,
               "keep answers for the run (64 MiB): a repeated GET is revalidated (a 304 is free on GitHub), "
               "identical ones in flight at once share one request");
  cmd.add_flag("--pace", a.pace,
               "pace the requests of --lane on --installation's budget: every process pacing it, knowing nothing "
               "of the others, spreads it to the reset and leaves 5% (a request waits, uncounted, for its turn)");
  cmd.add_option("--etag-compare", a.etag_compare,
                 "send If-None-Match with the ETag on FILE's first line (empty or missing: \"\"), as curl; one URL");
  cmd.add_option("--etag-save", a.etag_save,
                 "write a 2xx/3xx answer's ETag to FILE (created first; kept when the answer has none), as curl; "
                 "one URL");
  cmd.add_option("--meter-log", a.meter_log, "append the meter's hourly lines to FILE instead of stderr ('-': stdout)");
}

}  // namespace

void add_fetch(CLI::App& root, Action& action) {
  auto a = std::make_shared<FetchArgs>();
  CLI::App* cmd = root.add_subcommand("fetch", kFetchHelp);
  const BodyOptions body = add_request_options(*cmd, *a);
  add_output_options(*cmd, *a);
  add_run_options(*cmd, *a);
  last_wins(*cmd);
  cmd->callback([a, cmd, body, &action] {
    a->request.data = data_in_order(*cmd, {{body.data, DataArg::Kind::data},
                                           {body.binary, DataArg::Kind::binary},
                                           {body.raw, DataArg::Kind::raw},
                                           {body.json, DataArg::Kind::json}});
    action = [a] { return run_fetch(*a); };
  });
}

}  // namespace forgemeter::cli
