// add_proxy_options and plan_proxy (proxy_options.h).
#include "cli/proxy/proxy_options.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "appauth/app_keys.h"
#include "cli/errors.h"
#include "cli/lease/duration_arg.h"
#include "cli/number_arg.h"
#include "core/number_text.h"
#include "proxy/url_rewrite.h"

namespace forgemeter::cli {

void add_proxy_options(CLI::App& cmd, ProxyArgs& a) {
  cmd.add_option("--upstream", a.upstream,
                 "the forge's API base: https://api.github.com, https://HOST/api/v3 (GitHub Enterprise), "
                 "https://gitlab.com")
      ->required();
  cmd.add_option("--listen", a.listen,
                 "HOST:PORT or unix:PATH to serve clients on, repeatable (default 127.0.0.1:8888)");
  cmd.add_option("--admin-listen", a.admin_listen, "HOST:PORT or unix:PATH for /metrics, /healthz and /readyz");
  cmd.add_option("--public-url", a.public_url,
                 "the base URL clients address the proxy by, when an ingress stands in front (else the "
                 "listener's scheme and the request's Host)");
  cmd.add_option("--cache", a.cache, "what the conditional cache may hold, e.g. 64MiB (default); 0: no cache")
      ->transform(CLI::AsSizeValue(false));
  cmd.add_option("--pace", a.pace,
                 "LANE[:KEEP]: pace the lane's requests so that the fleet ends each hour with KEEP of the budget "
                 "left (a count, or a percentage: 10%; default 0), repeatable");
  cmd.add_option("--lanes", a.lanes, "the only lane names clients may use (X-Forgemeter-Lane or /lanes/NAME/)")
      ->delimiter(',');
  cmd.add_option("--max-lanes", a.max_lanes, "without --lanes, at most this many distinct lane names (default 64)")
      ->check(whole_number(1, 10'000, "a lane count"));
  cmd.add_flag("--no-secondary-limits", a.no_secondary_limits,
               "do not hold requests to stay under GitHub's documented secondary limits");
  cmd.add_option("--retry", a.retry, "retries of a request the forge refused for a while (default 2)")
      ->check(whole_number(0, 10, "a retry count"));
  cmd.add_option("--meter-log", a.meter_log, "the hourly lines to FILE (appended; '-': stdout; default stderr)");
  cmd.add_option("--cacert", a.cacert,
                 "PEM bundle to verify the upstream's certificate against (default: the system's)");
  cmd.add_option("--upstream-timeout", a.upstream_timeout,
                 "the longest one upstream exchange may take, its whole body included (default 60s)");
  cmd.add_option("--max-wait", a.max_wait,
                 "the longest a request may be held for its pace, a pause or a secondary limit before it is "
                 "sent; one that would wait longer is answered 429 with Retry-After at once (default 10s)");
  cmd.add_option("--max-in-flight", a.max_in_flight, "requests forwarded at once (default 128)")
      ->check(whole_number(1, 10'000, "a request count"));
  cmd.add_option("--max-queue", a.max_queue, "requests waiting for one of those; past it 429 at once (default 1024)")
      ->check(whole_number(0, 1'000'000, "a request count"));
  cmd.add_option("--app", a.apps,
                 "ID=PUBLIC_KEY_FILE: a GitHub App's ID and its public key (PEM: openssl rsa -in KEY -pubout).\n"
                 "POST /app/installations/{id}/access_tokens with a JWT that verifies against it (RS256, not\n"
                 "expired) is answered with the token minted before for that App, installation and scope while\n"
                 "it has more than a minute left; anything else is forwarded. Repeatable (docs/proxy.md)");
  // For tests on a fast clock: the "minute" a held token must have left.
  cmd.add_option("--app-token-margin", a.app_token_margin)->group("");
  // For tests against the loopback forge: each request's lane in this header,
  // the forge's ground truth by lane. Never the client's own header passed on.
  cmd.add_option("--upstream-lane-header", a.lane_header)->group("");
  cmd.add_option("--elect", a.elect,
                 "LANE: campaign for the lease named LANE and send the lane's requests only while this replica\n"
                 "leads it; on the others they are answered 503 with Retry-After, naming the holder and its term\n"
                 "(nothing sent upstream). Repeatable; the options below say where and how it campaigns");
  add_election_options(cmd, a.election, proxy_election_words());
  // For tests against the loopback forge: an elected request's term in this
  // header, for the forge to check that terms never go backwards.
  cmd.add_option("--upstream-term-header", a.term_header)->group("");
}

const ElectionWords& proxy_election_words() {
  static const ElectionWords words{
      .retry_flag = "--lease-retry",
      .owner_help =
          "with --elect: this replica's name, as the others' 503 gives it (default: the host name); the\n"
          "store gets it tagged per process",
      .exit_on_loss_help =
          "with --elect: the first term lost (refused, or no renewal proven in time) stops the proxy\n"
          "as SIGTERM does, with exit status 75, for an orchestrator to start it afresh"};
  return words;
}

namespace {

PacedLane paced_lane(const std::string& text) {
  const std::size_t colon = text.find(':');
  const std::string name = text.substr(0, colon);
  if (auto why = Lane::check(name)) throw UsageError(fmt::format("--pace '{}': {}", name, *why));
  PacedLane p{.lane = Lane(name)};
  if (colon == std::string::npos) return p;
  std::string keep = text.substr(colon + 1);
  if (!keep.empty() && keep.back() == '%') {
    keep.pop_back();
    const auto percent = core_detail::parse_decimal(keep, 0, 100);
    if (!percent) throw UsageError(fmt::format("--pace '{}': KEEP must be 0% to 100%", text));
    p.keep_fraction = *percent / 100;
  } else {
    const auto count = core_detail::parse_whole(keep, 0, 1'000'000'000);
    if (!count) throw UsageError(fmt::format("--pace '{}': KEEP must be a count or a percentage", text));
    p.keep = *count;
  }
  return p;
}

// --elect and its options: each lane named by the lane rule, among --lanes
// when given; the campaign's options only with --elect.
void plan_elected(const ProxyArgs& a, ProxyPlan& p) {
  const ElectionArgs& e = a.election;
  if (a.elect.empty()) {
    if (!e.store.store.empty() || !e.store.store_file.empty() || !e.owner.empty() || e.exit_on_loss)
      throw UsageError("--store, --store-file, --owner and --exit-on-loss go with --elect");
    return;
  }
  for (const std::string& lane : a.elect) {
    if (auto why = Lane::check(lane)) throw UsageError(fmt::format("--elect '{}': {}", lane, *why));
    if (!a.lanes.empty() && std::find(a.lanes.begin(), a.lanes.end(), lane) == a.lanes.end())
      throw UsageError(fmt::format("--elect '{}': not among --lanes", lane));
  }
  elector::ElectorOptions o;
  o.names = a.elect;
  plan_election(e, proxy_election_words(), o);
  // A step-down waits for the lane's requests at most one exchange's time,
  // and never past the expiry a step-down by the deadline leaves (TTL/6).
  p.drain = std::min<Duration>(p.transport.timeout, o.ttl / 6);
  p.election = std::move(o);
}

// --app ID=PUBLIC_KEY_FILE, each: the App's decimal ID and its RSA public
// key, read from the file (a private key, a weak or non-RSA key refused).
void plan_apps(const ProxyArgs& a, proxy::ForwarderOptions& f) {
  f.app_token_margin = std::chrono::duration_cast<std::chrono::milliseconds>(
      duration_arg(a.app_token_margin, "--app-token-margin", std::chrono::milliseconds(1), std::chrono::hours(1)));
  if (a.apps.empty()) return;
  auto keys = std::make_shared<appauth::AppKeys>();
  for (const std::string& app : a.apps) {
    const std::size_t eq = app.find('=');
    if (eq == std::string::npos) throw UsageError(fmt::format("--app '{}': give ID=PUBLIC_KEY_FILE", app));
    const auto id = core_detail::parse_whole(std::string_view(app).substr(0, eq), 1, UINT64_MAX);
    if (!id) throw UsageError(fmt::format("--app '{}': the App ID is a whole number from 1", app));
    const std::string file = app.substr(eq + 1);
    std::ifstream in(file, std::ios::binary);
    std::string pem(appauth::kMaxPemBytes + 1, '\0');
    in.read(pem.data(), static_cast<std::streamsize>(pem.size()));
    if (in.bad() || (!in && !in.eof()))
      throw CommandError(fmt::format("--app '{}': '{}' cannot be read: {}", app, file, std::strerror(errno)));
    pem.resize(static_cast<std::size_t>(in.gcount()));
    if (auto why = keys->add(*id, pem)) throw UsageError(fmt::format("--app '{}': {}", app, *why));
  }
  f.apps = std::move(keys);
}

}  // namespace

ProxyPlan plan_proxy(const ProxyArgs& a) {
  ProxyPlan p;
  proxy::ForwarderOptions& f = p.forwarder;
  f.upstream = a.upstream;
  while (!f.upstream.empty() && f.upstream.back() == '/') f.upstream.pop_back();
  if (auto why = proxy::UrlRewriter::check(f.upstream, "http://127.0.0.1"))
    throw UsageError(fmt::format("--upstream '{}': {}", a.upstream, *why));
  if (!a.public_url.empty())
    if (auto why = proxy::UrlRewriter::check(f.upstream, a.public_url))
      throw UsageError(fmt::format("--public-url '{}': {}", a.public_url, *why));
  f.public_url = a.public_url;
  f.max_in_flight = a.max_in_flight;
  f.max_queue = a.max_queue;
  TransportOptions& t = p.transport;
  t.ca_file = a.cacert;
  t.decompress = true;  // JSON bodies are rewritten: the proxy reads them decoded
  t.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
      duration_arg(a.upstream_timeout, "--upstream-timeout", std::chrono::seconds(1), std::chrono::hours(24)));
  t.user_agent = "";  // the client's User-Agent goes through
  t.lane_header = a.lane_header;
  t.cache.max_bytes = a.cache;
  t.rate_limits.retry.enabled = a.retry > 0;
  t.rate_limits.retry.max_retries = static_cast<int>(a.retry);
  if (a.no_secondary_limits) t.rate_limits.secondary_limits = SecondaryLimitOptions::off();
  for (const std::string& pace : a.pace) t.rate_limits.pacing.lanes.push_back(paced_lane(pace));
  f.lanes.named = a.lanes;
  f.lanes.max_lanes = a.max_lanes;
  f.patience = std::chrono::duration_cast<std::chrono::milliseconds>(
      duration_arg(a.serve.idle_timeout, "--idle-timeout", std::chrono::seconds(1), std::chrono::hours(24)));
  f.max_wait = std::chrono::duration_cast<std::chrono::milliseconds>(
      duration_arg(a.max_wait, "--max-wait", Duration::zero(), std::chrono::hours(1)));
  f.term_header = a.term_header;
  plan_apps(a, f);
  plan_elected(a, p);
  return p;
}

}  // namespace forgemeter::cli
