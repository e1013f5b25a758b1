// routes.h — the loopback forge's request handling (internal to the forge).
//
// install_accounting() counts every request and charges its budget before
// routing; install_routes() adds the endpoints listed in forge.h.
#pragma once

#include <httplib.h>

#include <map>
#include <mutex>
#include <string>

#include "testforge/budget.h"
#include "testforge/ground_truth.h"

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

void install_accounting(httplib::Server& server, const Listener& where, GroundTruth& truth,
                        Budgets& budgets);
void install_routes(httplib::Server& server, const Listener& where, FlakyCounters& flaky);

}  // namespace forgemeter::testforge
