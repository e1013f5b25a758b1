// routes.h — the loopback forge's request handling (internal to the forge).
//
// install_accounting() counts every request, charges its bucket and answers
// what a forge answers before routing (a spent budget, a secondary limit);
// install_routes() adds the endpoints listed in forge.h.
#pragma once

#include <httplib.h>

#include <map>
#include <mutex>
#include <string>

#include "forgemeter/clock.h"
#include "testforge/budget.h"
#include "testforge/ground_truth.h"
#include "testforge/holds.h"
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

// The ETag the forge gives a REST path.
std::string etag_of(const std::string& path);

// What the accounting step of every listener shares (owned by the Forge).
struct Accounting {
  const Clock& clock;
  GroundTruth& truth;
  Budgets& budgets;
  SecondaryLimits& secondary;
  bool gitlab_429_without_headers = false;  // ForgeOptions' of that name
};

void install_accounting(httplib::Server& server, const Listener& where, const Accounting& accounting);
void install_routes(httplib::Server& server, const Listener& where, FlakyCounters& flaky, Holds& holds);

}  // namespace forgemeter::testforge
