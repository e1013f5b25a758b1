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
//   kHosts (or any other) to 127.0.0.1 with resolve() (curl's --resolve form).
//
// Every answer carries X-RateLimit-Limit/Remaining/Used/Reset/Resource for the
// caller's budget (`Authorization: Bearer inst-<id>`, else the anonymous one);
// a spent budget answers 403 "API rate limit exceeded" (see budget.h).
//
// Endpoints (every host, every listener):
//   GET  /repos/...                 200 JSON with an ETag; 304 when If-None-Match matches
//   PUT|PATCH|DELETE /repos/...     200
//   POST /graphql, /api/graphql     200 {"data":{}}
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
//   ANY  /slow/<ms>                 answers after <ms> real milliseconds
//   ANY  /hostile?kind=huge|nonnumeric|negative|control   hostile rate-limit header values
//
// Thread-safety: every method may be called from any thread at once; the
// server threads run until the Forge is destroyed (or stop()).
// Errors: the constructor throws std::runtime_error when it cannot listen.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "forgemeter/clock.h"
#include "testforge/budget.h"
#include "testforge/ground_truth.h"

namespace forgemeter::testforge {

// The header a client may send to have the forge count its request by lane.
inline constexpr std::string_view kLaneHeader = "X-Forgemeter-Lane";

// Host names the forge's chains and tests use.
inline constexpr std::array<std::string_view, 3> kHosts = {"api.forge.test", "uploads.forge.test",
                                                           "codeload.forge.test"};

struct ForgeOptions {
  const Clock* clock = nullptr;                // the budgets' clock; nullptr = system_clock()
  std::uint64_t installation_limit = 5000;     // per installation and resource, per hour
  std::uint64_t anonymous_limit = 10'000'000;  // the anonymous budget (large: tests send a lot)
  bool tls = false;                            // also start the TLS listener
  std::size_t threads = 48;                    // server threads of the main listener
  std::size_t record_limit = 200'000;          // requests whose headers are kept
};

class Forge {
 public:
  explicit Forge(ForgeOptions options = {});
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

  // "<host>:<port>:127.0.0.1" for every name in kHosts and every listener.
  std::vector<std::string> resolve() const;

  // The test CA (PEM) and a temporary file holding it (removed with the Forge).
  // Empty without ForgeOptions::tls.
  const std::string& ca_pem() const noexcept;
  const std::string& ca_file() const noexcept;

  GroundTruth& truth() noexcept;
  Budgets& budgets() noexcept;

  // Stops every listener (idempotent; the destructor calls it).
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// "/redirect?status=<status>&to=<to, percent-encoded>".
std::string redirect_path(std::string_view to, int status = 302);

}  // namespace forgemeter::testforge
