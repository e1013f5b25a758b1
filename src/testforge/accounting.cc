// The forge's pre-routing step: ground truth, buckets and the rate-limit
// answers of each kind of forge, for every request; and the post-routing step
// that ends a request's turn in flight (secondary limits).
#include <charconv>
#include <string_view>

#include "core/ascii.h"
#include "testforge/charging.h"
#include "testforge/forge.h"
#include "testforge/routes.h"

namespace forgemeter::testforge {
namespace {

using httplib::Request;
using httplib::Response;
using Outcome = httplib::Server::HandlerResponse;

using core_detail::ascii_lowercase;

// `Bearer inst-<digits>` -> the id; anything else -> 0.
std::uint64_t installation_of(const std::string& authorization) {
  constexpr std::string_view prefix = "Bearer inst-";
  if (authorization.size() <= prefix.size() || authorization.compare(0, prefix.size(), prefix) != 0) return 0;
  std::uint64_t id = 0;
  const char* first = authorization.data() + prefix.size();
  const char* last = authorization.data() + authorization.size();
  auto [p, ec] = std::from_chars(first, last, id);
  return (ec == std::errc{} && p == last) ? id : 0;
}

// Whom a request authenticates as: an installation token the forge minted
// (nullopt when it does not authenticate now: expired, revoked, never
// minted), `Bearer inst-<id>`, or the anonymous caller (0).
std::optional<std::uint64_t> caller_of(const Accounting& a, const std::string& authorization, UtcMillis at) {
  if (const auto token = installation_token_of(authorization)) return a.apps.installation_of(*token, at);
  return installation_of(authorization);
}

Outcome bad_credentials(Response& res) {
  res.status = 401;
  res.set_content(R"({"message":"Bad credentials","documentation_url":"https://docs.github.com/rest","status":"401"})",
                  "application/json");
  return Outcome::Handled;
}

// Whole seconds from `at` to the epoch second `reset`, rounded up (never below 0).
std::int64_t seconds_until(std::int64_t reset, UtcMillis at) {
  const std::int64_t ms = reset * 1000 - at.time_since_epoch().count();
  return ms <= 0 ? 0 : (ms + 999) / 1000;
}

void github_headers(Response& res, const BudgetReading& b, const std::string& resource) {
  res.set_header("X-RateLimit-Limit", std::to_string(b.limit));
  res.set_header("X-RateLimit-Remaining", std::to_string(b.remaining));
  res.set_header("X-RateLimit-Used", std::to_string(b.used));
  res.set_header("X-RateLimit-Reset", std::to_string(b.reset_epoch));
  res.set_header("X-RateLimit-Resource", resource);
}

// GitHub: a secondary limit first (it spends nothing), then the primary bucket
// (a read the forge answers 304 spends nothing of it).
Outcome answer_github(const Accounting& a, const Request& req, Response& res, int listener_port,
                      std::uint64_t installation, const std::string& resource, UtcMillis at, bool not_modified) {
  const SecondaryLimits::Verdict v =
      a.secondary.arrive(installation, req.method == "POST", at, {listener_port, req.remote_port});
  if (v.limited) {
    github_headers(res, a.budgets.peek(installation, resource, at), resource);
    res.status = v.status;
    if (v.retry_after_s) res.set_header("Retry-After", std::to_string(*v.retry_after_s));
    res.set_content(std::string(kSecondaryBody), "application/json");
    return Outcome::Handled;
  }
  const std::uint64_t cost =
      cost_of(ForgeKind::github, resource, req.get_header_value(std::string(kCostHeader)), not_modified);
  const BudgetReading b = a.budgets.charge(installation, resource, cost, at);
  github_headers(res, b, resource);
  if (!b.exhausted) return Outcome::Unhandled;
  const std::string id = std::to_string(installation);
  if (resource == "graphql") {  // GraphQL says it in a 200's errors
    res.status = 200;
    res.set_content(R"({"errors":[{"type":"RATE_LIMITED","code":"graphql_rate_limit","message":"API rate limit )"
                    R"(exceeded for installation ID )" +
                        id + R"(."}]})",
                    "application/json");
    return Outcome::Handled;
  }
  res.status = 403;
  res.set_content(R"({"message":"API rate limit exceeded for installation ID )" + id + R"(."})", "application/json");
  return Outcome::Handled;
}

// GitLab: one per-minute bucket per user; 429 with Retry-After when spent;
// no rate-limit header at all when the request asks (?no_headers=1) or when
// the forge leaves them off its 429s (ForgeOptions::gitlab_429_without_headers).
// A request may ask for `RateLimit-Name: <name>` (?ratelimit_name=<name>) and
// for RateLimit-ResetTime without RateLimit-Reset (?no_reset=1).
Outcome answer_gitlab(const Accounting& a, const Request& req, Response& res, std::uint64_t installation,
                      UtcMillis at) {
  const BudgetReading b = a.budgets.charge(installation, "gitlab", 1, at);
  const bool bare = req.get_param_value("no_headers") == "1" || (b.exhausted && a.gitlab_429_without_headers);
  if (!bare) {
    res.set_header("RateLimit-Limit", std::to_string(b.limit));
    res.set_header("RateLimit-Remaining", std::to_string(b.remaining));
    res.set_header("RateLimit-Observed", std::to_string(b.used));
    if (req.get_param_value("no_reset") != "1") res.set_header("RateLimit-Reset", std::to_string(b.reset_epoch));
    res.set_header("RateLimit-ResetTime", http_date(b.reset_epoch));
    if (req.has_param("ratelimit_name")) res.set_header("RateLimit-Name", req.get_param_value("ratelimit_name"));
  }
  if (!b.exhausted) return Outcome::Unhandled;
  res.status = 429;
  if (!bare) res.set_header("Retry-After", std::to_string(seconds_until(b.reset_epoch, at)));
  res.set_content("Retry later\n", "text/plain");
  return Outcome::Handled;
}

}  // namespace

void install_accounting(httplib::Server& server, const Listener& where, const Accounting& accounting) {
  server.set_pre_routing_handler([a = accounting, where](const Request& req, Response& res) {
    const UtcMillis at = a.clock.now();
    const std::string host = req.get_header_value("Host");
    const ForgeKind kind = forge_kind_of(host);
    ReceivedRequest r;
    r.host = ascii_lowercase(host);
    r.method = req.method;
    r.target = req.target;
    r.lane = req.get_header_value(std::string(kLaneHeader));
    const auto caller = caller_of(a, req.get_header_value("Authorization"), at);
    r.installation = caller.value_or(0);
    r.listener_port = where.port;
    r.tls = where.scheme == "https";
    r.at = at;
    // GitHub bills an App's own calls (its JWT's) to the App, not to an installation.
    const bool app_call = kind == ForgeKind::github && req.path.starts_with("/app/");
    r.resource = app_call ? "app" : resource_of(kind, req.path);
    r.headers.assign(req.headers.begin(), req.headers.end());
    r.conditional = req.has_header("If-None-Match") || req.has_header("If-Modified-Since");
    const std::uint64_t installation = r.installation;
    const std::string resource = r.resource;
    a.truth.record(std::move(r), req.remote_port);
    if (!caller) return bad_credentials(res);
    if (app_call) return Outcome::Unhandled;

    // A resource read is decided here, once: what it is charged and what it is answered agree.
    std::optional<Representation> read;
    if (is_resource_read(req)) read = represent(a.resources, req);
    const bool unchanged = read && not_modified(req, *read);
    Outcome outcome = Outcome::Unhandled;  // Gitea keeps no budget and says nothing
    if (kind == ForgeKind::gitlab) outcome = answer_gitlab(a, req, res, installation, at);
    if (kind == ForgeKind::github)
      outcome = answer_github(a, req, res, where.port, installation, resource, at, unchanged);
    if (outcome == Outcome::Handled || !unchanged) return outcome;
    answer_not_modified(res, *read);
    return Outcome::Handled;
  });
  // Runs for every answer, just before it is written: the request is done.
  server.set_post_routing_handler(
      [&truth = accounting.truth, &secondary = accounting.secondary, where](const Request& req, Response& res) {
        secondary.finished({where.port, req.remote_port});
        truth.answered(ascii_lowercase(req.get_header_value("Host")), req.get_header_value(std::string(kLaneHeader)),
                       res.status);
      });
}

}  // namespace forgemeter::testforge
