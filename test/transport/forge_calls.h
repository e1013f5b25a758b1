// Small helpers of the loopback forge's own tests (forge_*_test.cc): requests
// signed as an installation, and the forge's header values spelled as it
// spells them.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "transport_rig.h"

namespace fmtest {

// `r` sent as `installation` (0: anonymous, no credential).
inline forgemeter::Request as(std::uint64_t installation, forgemeter::Request r) {
  if (installation) {
    r.installation = installation;
    r.bearer = "inst-" + std::to_string(installation);
  }
  return r;
}

// A POST /graphql costing `cost` points ("" = no X-Forge-Cost header).
inline forgemeter::Request graphql(Rig& rig, std::uint64_t installation, std::string cost,
                                   std::string_view path = "/graphql") {
  forgemeter::Request r{.method = "POST", .url = rig.url("api.forge.test", path), .body = R"({"query":"{x}"})"};
  if (!cost.empty()) r.headers.emplace_back(std::string(tf::kCostHeader), std::move(cost));
  return as(installation, std::move(r));
}

// An instant as the forge's Reset headers spell it: epoch seconds.
inline std::string epoch_s(forgemeter::UtcMillis t) {
  return std::to_string(floor<seconds>(t).time_since_epoch().count());
}

// The names of the answer's rate-limit headers, either spelling, and Retry-After, sorted.
inline std::vector<std::string> rate_limit_headers(const forgemeter::Response& res) {
  std::vector<std::string> out;
  for (auto [name, value] : res.headers) {
    std::string n(name);
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
    if (n.find("ratelimit") != std::string::npos || n == "retry-after") out.push_back(std::string(name));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace fmtest
