// forge.h — the loopback forge: a real HTTP(S) server on 127.0.0.1 that behaves
// like GitHub where forgemeter cares, and counts what it received.
//
// Internal to the build (tests, benchmarks, the CLI demo); not installed.
//
//   testforge::Forge forge({.clock = &clock, .tls = true});
//   TransportOptions t{.resolve = forge.resolve(), .ca_file = forge.ca_file()};
//   ... perform(forge.url("api.forge.test", "/repos/o/r/pulls/1")) ...
//   CHECK(forge.truth().by_host()["api.forge.test:" + port] == 1);
//
// Listeners (all on 127.0.0.1, ephemeral ports, started by the constructor):
//   port()      plain HTTP;  alt_port() a second plain HTTP port (cross-port
//   redirects); tls_port() HTTPS with a test CA generated at start-up (when
//   ForgeOptions::tls). Any Host name is served; clients map the names in
//   kHosts and kOtherForgeHosts (or any other) to 127.0.0.1 with resolve()
//   (curl's --resolve form).
//
// Which forge answers depends on the Host name (charging.h):
//   gitlab.forge.test (kGitlabHost)  GitLab-style; gitea.forge.test (kGiteaHost)
//   Gitea-style; every other name GitHub-style.
//
// Budgets (budget.h): one bucket per (caller, resource), on the forge's Clock.
// The caller is `Authorization: Bearer inst-<id>`, or the installation of an
// installation token the forge minted (`token ghs_…` or `Bearer ghs_…`:
// app_tokens.h), else the anonymous one (0). A `ghs_` token that does not
// authenticate now (expired on the forge's clock, revoked, never minted) is
// answered 401 {"message":"Bad credentials",…}, counted, charged nothing.
//   GitHub  core (REST, hourly, installation_limit), search (/search/..., per
//           minute, search_limit), code_search (/search/code, per minute,
//           code_search_limit), graphql (POST /graphql, hourly, graphql_limit
//           points; a request costs its X-Forge-Cost header, default 1). A
//           conditional GET answered 304 costs nothing (its X-RateLimit-*
//           still sent, Used unchanged).
//   GitLab  gitlab (every request, per minute, gitlab_limit).
//   Gitea   none.
//   The anonymous caller gets anonymous_limit in every bucket.
//
// Header contracts (what every answer carries, before the route runs):
//   GitHub  X-RateLimit-Limit, -Remaining, -Used, -Reset (epoch seconds: the end
//           of the bucket's window), -Resource (the bucket's name). A spent
//           bucket answers 403 {"message":"API rate limit exceeded for
//           installation ID <id>."} with Remaining 0 and no Retry-After;
//           a spent graphql bucket answers 200 {"errors":[{"type":
//           "RATE_LIMITED",…}]} (GitHub's GraphQL says it in the body).
//           A secondary limit (secondary.h; ForgeOptions::secondary, or
//           limit_secondary()) answers 403 or 429 with kSecondaryBody,
//           `Retry-After: <seconds left>` or none, and the X-RateLimit-* of
//           the bucket the request would have spent — unspent by it.
//   GitLab  RateLimit-Limit, -Remaining, -Observed (used in the window), -Reset
//           (epoch seconds), -ResetTime (HTTP date); no X- headers, no resource.
//           `?ratelimit_name=<name>` adds RateLimit-Name: <name>; `?no_reset=1`
//           leaves RateLimit-Reset off (ResetTime alone).
//           A spent window answers 429 "Retry later" with Retry-After (seconds
//           to the window's end). With `?no_headers=1` on the request (any
//           answer), or gitlab_429_without_headers (the 429s), none of these
//           headers, Retry-After included.
//   Gitea   no rate-limit header at all, never a rate-limit refusal.
//
// Endpoints (every host, every listener), after the accounting above:
//   GET  /repos/...                 a resource (resources.h): 200 {"path":…,"state":"open"[,"version":n]
//                                   [,"viewer":…][,"media":…]} with ETag (per path, version, credential,
//                                   Accept and Accept-Encoding: a keyed hash), Last-Modified and
//                                   `Vary: Accept, Authorization, Accept-Encoding`; 304 (same headers, no
//                                   body) when If-None-Match matches (weak comparison, lists, *) or, without
//                                   it, If-Modified-Since is not older than Last-Modified. bump(path)
//                                   changes it: the next GET is 200 with a new body and ETag. With
//                                   ?hold=<key>, a 200 waits as /hold/<key> does (a 304 does not)
//                                   In GitHub's shapes (github_shapes.h), URLs absolute on the origin
//                                   the request addressed: /repos/{o}/{r} a repository,
//                                   /repos/{o}/{r}/pulls/{n} a pull (both after the fields above), and
//                                   /repos/{o}/{r}/pulls a list of ForgeOptions::pulls, paged by
//                                   ?per_page (30) and ?page with GitHub's `Link` (prev, next, last, first)
//   POST /app/installations/{id}/access_tokens   an installation token (ForgeOptions::apps), for
//                                   `Authorization: Bearer <App JWT>` verified by appauth on the forge's
//                                   clock (else 401, GitHub's messages); 404 for an installation not of
//                                   the JWT's App; an optional body {"repositories": [names],
//                                   "repository_ids": [ids], "permissions": {name: level}} (422 beyond
//                                   the installation's). 201 {"token":"ghs_…","expires_at":"<RFC 3339,
//                                   s, Z>","permissions","repository_selection":"all"|"selected"
//                                   [,"repositories": [repository objects]]}. Charged to no budget
//                                   (GitHub bills the App): resource "app" in the ground truth
//   DELETE /installation/token      with an installation token: 204, and the token ends at once
//   PUT|PATCH|DELETE /repos/...     200
//   POST /graphql, /api/graphql     200 {"data":{}}
//   GET  /search/...                200 {"total_count":0,"items":[]} (/search/issues, /search/code, ...)
//   ANY  /echo                      200 {"method":…,"body_bytes":…}
//   ANY  /status/<code>[?retry_after=s]      that status
//   ANY  /redirect?status=<3xx>&to=<url>     a redirect to `to` (see redirect_path())
//   ANY  /chain/<n>[?status=<3xx>]  n > 0: a redirect to /chain/<n-1> on the next host of
//                                   kHosts (same scheme and port); n = 0: like /echo
//   ANY  /loop                      302 to itself (relative Location)
//   ANY  /flaky/<key>?fail=<k>[&status=503]  the first k requests with that key fail
//   ANY  /drop[?key=<key>&fail=<k>] headers, then the connection closes mid-body
//                                   (with a key: only the first k times)
//   ANY  /secondary/<key>?fail=<k>&retry_after=<s>  403 secondary rate limit, k times
//                                   (the route's own; Retry-After always sent)
//   ANY  /slow/<ms>[?to=<url>]      answers after <ms> real milliseconds (with `to`: a 302 there)
//   ANY  /hold/<key>[?max_ms=30000] answers (like /echo) once release(key) was called;
//                                   500 after max_ms real milliseconds without it
//   ANY  /hostile?kind=huge|nonnumeric|negative|control|syntax   hostile values in every
//                                   rate-limit header, X- and unprefixed, Resource and Retry-After too
//   ANY  /hostile/etag?kind=crlf|cr|control|huge|unquoted   like /echo, with an ETag no forge should
//                                   send: a CRLF and a header after it, a bare CR, an ESC, 1 MiB, no quotes
//
// Ground truth (ground_truth.h): every request that reaches the forge is
// counted once, whatever it is answered, with its forge-clock arrival (`at`)
// and the bucket it was charged to or answered under (`resource`); requests
// carrying If-None-Match / If-Modified-Since and answers 304, by host and lane.
//
// Thread-safety: every method may be called from any thread at once; the
// server threads run until the Forge is destroyed (or stop()).
// Errors: the constructor throws std::runtime_error when it cannot listen.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "forgemeter/clock.h"
#include "testforge/budget.h"
#include "testforge/forge_apps.h"
#include "testforge/ground_truth.h"
#include "testforge/secondary.h"

namespace forgemeter::testforge {

// The header a client may send to have the forge count its request by lane.
inline constexpr std::string_view kLaneHeader = "X-Forgemeter-Lane";
// The header a client may send with POST /graphql: the query's cost in points
// (GitHub reports it as rateLimit { cost }; here the client says it).
inline constexpr std::string_view kCostHeader = "X-Forge-Cost";

// Host names the forge's chains and tests use (GitHub-style; /chain cycles through them).
inline constexpr std::array<std::string_view, 3> kHosts = {"api.forge.test", "uploads.forge.test",
                                                           "codeload.forge.test"};
// The other kinds of forge, by Host name. resolve() maps them too.
inline constexpr std::string_view kGitlabHost = "gitlab.forge.test";
inline constexpr std::string_view kGiteaHost = "gitea.forge.test";
inline constexpr std::array<std::string_view, 2> kOtherForgeHosts = {kGitlabHost, kGiteaHost};

struct ForgeOptions {
  const Clock* clock = nullptr;                // the budgets' clock; nullptr = system_clock()
  std::uint64_t installation_limit = 5000;     // core, per installation, per hour
  std::uint64_t anonymous_limit = 10'000'000;  // the anonymous caller, every bucket (large: tests send a lot)
  std::uint64_t search_limit = 30;             // search, per installation, per minute
  std::uint64_t code_search_limit = 10;        // code_search, per installation, per minute
  std::uint64_t graphql_limit = 5000;          // graphql points, per installation, per hour
  std::uint64_t gitlab_limit = 600;            // the GitLab-style host, per user, per minute
  std::chrono::seconds core_window{3600};      // the hourly buckets' window (core, graphql): shorter in tests
  bool gitlab_429_without_headers = false;     // the GitLab-style host's 429s carry no rate-limit header
  SecondaryLimit secondary;                    // GitHub secondary-limit rules (off by default)
  bool tls = false;                            // also start the TLS listener
  std::size_t threads = 48;                    // server threads of the main listener
  std::size_t record_limit = 200'000;          // requests whose headers are kept
  std::size_t pulls = 75;                      // pulls in every repository's list (3 pages of GitHub's 30)
  std::vector<ForgeApp> apps;                  // GitHub Apps and their installations (app_tokens.h)
  std::chrono::milliseconds token_lifetime{std::chrono::hours(1)};  // an installation token's: shorter in tests
};

class Forge {
 public:
  explicit Forge(const ForgeOptions& options = {});
  ~Forge();
  Forge(const Forge&) = delete;
  Forge& operator=(const Forge&) = delete;

  int port() const noexcept;
  int alt_port() const noexcept;
  int tls_port() const noexcept;  // 0 without ForgeOptions::tls

  // "http://<host>:<port()><path>", and the same on the other listeners.
  std::string url(std::string_view host, std::string_view path) const;
  std::string alt_url(std::string_view host, std::string_view path) const;
  std::string tls_url(std::string_view host, std::string_view path) const;

  // "<host>:<port>:127.0.0.1" for every name in kHosts and kOtherForgeHosts, and every listener.
  std::vector<std::string> resolve() const;

  // The test CA (PEM) and a temporary file holding it (removed with the Forge).
  // Empty without ForgeOptions::tls.
  const std::string& ca_pem() const noexcept;
  const std::string& ca_file() const noexcept;

  GroundTruth& truth() noexcept;
  Budgets& budgets() noexcept;
  SecondaryLimits& secondary() noexcept;

  // Limits `installation` (GitHub-style hosts) for `duration` from the forge
  // clock's now, as a tripped secondary rule would: every request of it until
  // then is answered ForgeOptions::secondary.status (or `status` when not 0)
  // with kSecondaryBody, and `Retry-After: <seconds left>` when send_retry_after.
  void limit_secondary(std::uint64_t installation, std::chrono::seconds duration, bool send_retry_after = true,
                       int status = 0);
  // When `installation`'s secondary limit ends, if it is limited now.
  std::optional<UtcMillis> secondary_limited_until(std::uint64_t installation) const;

  // /hold/<key>: let every held request of `key` go on (and later ones pass);
  // wait (real time) until `n` requests are held on `key` at once.
  void release(const std::string& key);
  bool await_held(const std::string& key, std::size_t n, std::chrono::milliseconds timeout) const;

  // A new version of the resource at `path` ("/repos/o/r/pulls/1", no query):
  // the next GET of it is 200 with a new body, ETag and Last-Modified, for
  // every credential. Returns the version (1 after the first bump).
  std::uint64_t bump(std::string_view path);
  // The ETag the forge gives `path` now, for a request with these headers
  // ("" = absent; libcurl sends `Accept: */*` and no Accept-Encoding unless told).
  std::string etag(std::string_view path, std::string_view authorization, std::string_view accept = "*/*",
                   std::string_view accept_encoding = "") const;

  // Installation tokens minted for `installation` so far.
  std::uint64_t tokens_minted(std::uint64_t installation) const;

  // The forge's clock (ForgeOptions::clock or system_clock()).
  const Clock& clock() const noexcept;

  // Stops every listener (idempotent; the destructor calls it). Held requests are released first.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// "/redirect?status=<status>&to=<to, percent-encoded>".
std::string redirect_path(std::string_view to, int status = 302);

}  // namespace forgemeter::testforge
