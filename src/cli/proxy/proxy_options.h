// proxy_options.h — `forgemeter proxy`'s options (its --help) and what they
// add up to: the Transport's options, the lane book's, the upstream's base,
// the elected lanes' campaigns, the Apps whose tokens are shared.
// plan_proxy() throws UsageError (exit 2) for options that cannot work
// together, naming the option.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/lease/election_options.h"
#include "cli/serve_options.h"
#include "forgemeter/transport.h"
#include "proxy/forwarder/forward.h"

namespace forgemeter::cli {

struct ProxyArgs {
  std::string upstream, public_url, admin_listen, meter_log, cacert, upstream_timeout = "60s", max_wait = "10s";
  std::string lane_header;
  std::vector<std::string> listen{"127.0.0.1:8888"};
  std::size_t cache = std::size_t{64} << 20;
  std::vector<std::string> pace, lanes;
  std::size_t max_lanes = 64, max_in_flight = 128, max_queue = 1024, retry = 2;
  bool no_secondary_limits = false;
  std::vector<std::string> elect;  // --elect: the lanes campaigned for
  ElectionArgs election;           // their store, owner, TTL, --lease-retry, ...
  std::string term_header;         // tests: an elected request's term upstream
  std::vector<std::string> apps;   // --app ID=PUBLIC_KEY_FILE
  std::string app_token_margin = "60s";
  ServeArgs serve;
};

void add_proxy_options(CLI::App& cmd, ProxyArgs& a);
// How --elect's campaign options are named and explained on the proxy
// (its own --retry counts a request's retries: the interval is --lease-retry).
const ElectionWords& proxy_election_words();

struct ProxyPlan {
  TransportOptions transport;  // all but the meter
  proxy::ForwarderOptions forwarder;
  std::optional<elector::ElectorOptions> election;  // with --elect: its campaigns (all but the callbacks)
  Duration drain{};                                 // how long a step-down waits for the lane's requests
};

ProxyPlan plan_proxy(const ProxyArgs& args);

}  // namespace forgemeter::cli
