// routes.h — the loopback forge's request handling (internal to the forge).
//
// install_accounting() counts every request, charges its bucket and answers
// what a forge answers before routing (a spent budget, a secondary limit, a
// resource not modified: decided once, so the charge and the answer agree);
// install_routes() adds the endpoints listed in forge.h.
#pragma once

#include <httplib.h>

#include <map>
#include <mutex>
#include <string>

#include "forgemeter/clock.h"
#include "testforge/app_tokens.h"
#include "testforge/budget.h"
#include "testforge/ground_truth.h"
#include "testforge/holds.h"
#include "testforge/resources.h"
#include "testforge/secondary.h"

namespace forgemeter::testforge {

struct Listener {
  std::string scheme;  // "http" or "https"
  int port = 0;
};

// Per-key counters of the flaky endpoints, shared by every listener.
class FlakyCounters {
 public:
  // The number of requests seen with `key`, this one included.
  int bump(const std::string& key);

 private:
  std::mutex mu_;
  std::map<std::string, int> seen_;
};

// The forge's own origin as `req` addressed it: the listener's scheme and the Host sent.
std::string origin_of(const httplib::Request& req, const Listener& where);
// GET (or HEAD) /repos/...: a resource read, answered from Resources.
bool is_resource_read(const httplib::Request& req);
// What the forge answers `req`, a resource read, now.
Representation represent(const Resources& resources, const httplib::Request& req);
// Whether `req`'s If-None-Match / If-Modified-Since make it a 304 for `r`.
bool not_modified(const httplib::Request& req, const Representation& r);
// A 304 for `r` (ETag, Last-Modified, Vary; no body).
void answer_not_modified(httplib::Response& res, const Representation& r);
// The 200 of a resource read: its body in GitHub's shape where it has one
// (github_shapes.h), URLs on the origin the request addressed on `where`.
void answer_resource(const httplib::Request& req, httplib::Response& res, const Representation& r,
                     const Resources& resources, const Listener& where);

// What the accounting step of every listener shares (owned by the Forge).
struct Accounting {
  const Clock& clock;
  GroundTruth& truth;
  Budgets& budgets;
  SecondaryLimits& secondary;
  Resources& resources;
  const AppTokens& apps;
  bool gitlab_429_without_headers = false;  // ForgeOptions' of that name
};

void install_accounting(httplib::Server& server, const Listener& where, const Accounting& accounting);
// POST /app/installations/{id}/access_tokens and DELETE /installation/token (app_routes.cc).
void install_app_routes(httplib::Server& server, const Listener& where, AppTokens& apps, const Clock& clock);
void install_routes(httplib::Server& server, const Listener& where, FlakyCounters& flaky, Holds& holds,
                    const Resources& resources);

}  // namespace forgemeter::testforge
