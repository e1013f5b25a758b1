// forgemeter fetch: curl-like metered requests through the library's Transport.
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/errors.h"
#include "cli/signal_watch.h"
#include "forgemeter/transport.h"
#include "report/terminal_text.h"

namespace forgemeter::cli {

using report::has_control_bytes;
using report::terminal_text;

namespace {

struct FetchArgs {
  std::string method = "GET", data, lane, bearer_file, cacert, urls_file, installation;
  std::vector<std::string> headers, resolve, urls;
  int max_redirs = 10, retry = 0, parallel = 1;
};

std::optional<Lane> lane_of(const std::string& name, const std::string& where) {
  if (name.empty()) return std::nullopt;
  std::string why;
  auto lane = Lane::parse(name, &why);
  if (!lane) throw UsageError(fmt::format("{}: lane '{}': {}", where, name, why));
  return lane;
}

// An installation id: digits only, 0 (none) to 2^64-1. A sign, a fraction or
// a value past the range is a usage error, never wrapped.
std::uint64_t installation_of(std::string_view text, const std::string& where) {
  std::uint64_t id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (text.empty() || text[0] == '+' || ec != std::errc{} || end != text.data() + text.size())
    throw UsageError(
        fmt::format("{}: '{}' is not an installation id (a whole number from 0, none, to "
                    "18446744073709551615)",
                    where, terminal_text(text)));
  return id;
}

// A method or URL with a control byte is refused, shown escaped.
void check_text(std::string_view what, std::string_view text, const std::string& where) {
  if (has_control_bytes(text))
    throw UsageError(fmt::format("{}: the {} '{}' has a control byte; not sent", where, what, terminal_text(text)));
}

std::string read_secret(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Failure(fmt::format("cannot read the bearer file '{}'; check the path and its permissions", path));
  std::stringstream ss;
  ss << f.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

// `--urls FILE`: one request per line, `METHOD URL [lane=L] [installation=N]`; blank lines and # comments skipped.
std::vector<Request> read_url_file(const std::string& path, const Request& base) {
  std::ifstream f(path);
  if (!f) throw Failure(fmt::format("cannot read --urls file '{}'; check the path", path));
  std::vector<Request> out;
  std::string line;
  for (int n = 1; std::getline(f, line); ++n) {
    std::istringstream words(line);
    std::string method, url, extra;
    if (!(words >> method) || method[0] == '#') continue;
    std::string where = fmt::format("{}:{}", path, n);
    if (!(words >> url)) throw UsageError(fmt::format("{}: want 'METHOD URL [lane=L] [installation=N]'", where));
    check_text("method", method, where);
    check_text("URL", url, where);
    Request r = base;
    r.method = method;
    r.url = url;
    while (words >> extra) {
      if (extra.rfind("lane=", 0) == 0) {
        r.lane = lane_of(extra.substr(5), where);
      } else if (extra.rfind("installation=", 0) == 0) {
        r.installation = installation_of(std::string_view(extra).substr(13), where);
      } else {
        throw UsageError(
            fmt::format("{}: unknown field '{}' (want lane=L or installation=N)", where, terminal_text(extra)));
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::string describe(const Request& req, const Response& res, std::chrono::steady_clock::duration took) {
  std::string hops;
  for (const Hop& h : res.hops)
    hops += fmt::format("{}{} {}", hops.empty() ? "" : " -> ", h.host,
                        h.status == kNoAnswer ? std::string("none") : std::to_string(h.status));
  auto ms = static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(took).count()) / 1000.0;
  std::string line = fmt::format("{} {} {} {:.1f}ms hops={} [{}]",
                                 res.status == kNoAnswer ? std::string("---") : std::to_string(res.status), req.method,
                                 req.url, ms, res.hops.size(), hops);
  if (res.error) line += fmt::format(" error={}: {}", to_string(res.error.code), res.error.message);
  return terminal_text(line);  // hosts and messages come from a forge's redirects
}

int run_fetch(const FetchArgs& a) {
  Request base;
  check_text("method", a.method, "--request");
  base.method = a.method;
  base.body = a.data;
  if (!a.installation.empty()) base.installation = installation_of(a.installation, "--installation");
  base.lane = lane_of(a.lane, "--lane");
  for (const auto& h : a.headers) {
    auto colon = h.find(':');
    if (colon == std::string::npos || colon == 0) throw UsageError(fmt::format("-H '{}' wants 'Name: value'", h));
    std::string value = h.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.erase(0, 1);
    base.headers.emplace_back(h.substr(0, colon), value);
  }
  if (!a.bearer_file.empty()) base.bearer = read_secret(a.bearer_file);
  std::vector<Request> requests;
  for (const auto& u : a.urls) {
    check_text("URL", u, "URL");
    Request r = base;
    r.url = u;
    requests.push_back(std::move(r));
  }
  if (!a.urls_file.empty())
    for (auto& r : read_url_file(a.urls_file, base)) requests.push_back(std::move(r));
  if (requests.empty()) throw UsageError("no URL given (name URLs or --urls FILE)");

  Meter meter;  // lines to stderr at its flush (the end of this function)
  TransportOptions to;
  to.meter = &meter;
  to.resolve = a.resolve;
  to.ca_file = a.cacert;
  to.max_redirects = a.max_redirs;
  to.retry.enabled = a.retry > 0;
  to.retry.max_retries = a.retry;
  std::unique_ptr<Transport> transport;
  try {
    transport = std::make_unique<Transport>(to);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  std::atomic<std::size_t> next{0}, failed{0};
  std::mutex out_mu;
  // SIGINT/SIGTERM: the lines finished so far and what the meter counted
  // (its hour marked `until …, stopping`) are written, then 128 + the signal.
  SignalWatch signals([&](int sig) {
    std::lock_guard lock(out_mu);
    std::fflush(stdout);
    meter.flush();
    std::fflush(stderr);
    ::_exit(128 + sig);
  });
  auto worker = [&] {
    for (std::size_t i = next++; i < requests.size(); i = next++) {
      auto t0 = std::chrono::steady_clock::now();
      Response res = transport->perform(requests[i]);
      std::string line = describe(requests[i], res, std::chrono::steady_clock::now() - t0);
      if (!res.ok()) ++failed;
      std::lock_guard lock(out_mu);
      std::puts(line.c_str());
      std::fflush(stdout);  // a line per finished request, as it finishes (also into a file or pipe)
    }
  };
  {
    std::vector<std::jthread> pool;
    for (int i = 1; i < a.parallel; ++i) pool.emplace_back(worker);
    worker();
  }
  std::fflush(stdout);
  transport.reset();
  meter.flush();
  return failed == 0 ? kExitOk : kExitFailure;
}

}  // namespace

void add_fetch(CLI::App& root, Action& action) {
  auto a = std::make_shared<FetchArgs>();
  CLI::App* cmd = root.add_subcommand(
      "fetch",
      "Send metered requests through forgemeter's Transport (curl-like). One line per request on stdout: final\n"
      "status, method, URL, time, hops with their hosts. At exit the meter's hourly lines go to stderr.\n"
      "Exit 0 when every exchange completed (any HTTP status), 1 when one failed, 2 usage, 130/143 on\n"
      "SIGINT/SIGTERM (after writing the lines finished so far and the meter's lines).");
  cmd->add_option("URL", a->urls, "URLs to request");
  cmd->add_option("-X,--request", a->method, "method (default GET)");
  cmd->add_option("-H,--header", a->headers, "extra header 'Name: value' (repeatable)")->allow_extra_args(false);
  cmd->add_option("-d,--data", a->data, "request body");
  cmd->add_option("--lane", a->lane, "lane to count the requests under (default: other)");
  cmd->add_option("--installation", a->installation, "GitHub App installation id the requests spend (default: none)");
  cmd->add_option("--bearer-file", a->bearer_file,
                  "file holding the bearer token (sent to the request's own origin only)");
  cmd->add_option("--resolve", a->resolve, "host:port:address, like curl (repeatable)")->allow_extra_args(false);
  cmd->add_option("--cacert", a->cacert, "PEM file of CAs to verify TLS against instead of the system's");
  cmd->add_option("--max-redirs", a->max_redirs, "redirect hops to follow (default 10)")->check(CLI::Range(0, 50));
  cmd->add_option("--retry", a->retry,
                  "retries per hop for connection failures, 502/503/504 and secondary rate limits (default 0)")
      ->check(CLI::Range(0, 10));
  cmd->add_option("--urls", a->urls_file, "file of requests, one a line: METHOD URL [lane=L] [installation=N]");
  cmd->add_option("--parallel", a->parallel, "requests in flight at once (default 1)")->check(CLI::Range(1, 64));
  cmd->callback([a, &action] { action = [a] { return run_fetch(*a); }; });
}

}  // namespace forgemeter::cli
