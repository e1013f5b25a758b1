// ProxiedSweep (proxied_sweep.h).
#include "demo/proxied_sweep.h"

#include <stdexcept>

#include "appauth/app_keys.h"
#include "demo/demo_fleet.h"

namespace forgemeter::demo {
namespace {

TransportOptions upstream_options(Meter& meter, FastClock& clock, const testforge::Forge& forge, const DemoPlan& plan) {
  TransportOptions o;
  o.meter = &meter;
  o.clock = &clock;
  o.resolve = forge.resolve();
  o.lane_header = std::string(testforge::kLaneHeader);  // the forge's ground truth by lane
  o.cache.max_bytes = plan.cache_bytes;
  o.decompress = true;
  o.user_agent = "";
  o.rate_limits.pacing.lanes = {
      {.lane = Lane(kSweepLane), .installation = plan.installation, .keep_fraction = plan.keep_fraction}};
  return o;
}

proxy::ForwarderOptions forwarder_options(const testforge::Forge& forge, FastClock& clock, const AppJwtSigner& app) {
  proxy::ForwarderOptions o;
  auto apps = std::make_shared<appauth::AppKeys>();
  if (auto why = apps->add(app.app_id(), app.public_pem())) throw std::runtime_error("the demo's proxy: " + *why);
  o.apps = std::move(apps);
  o.clock = &clock;  // the JWTs' and the tokens' time
  o.upstream = forge.url(testforge::kHosts[0], "");
  o.max_in_flight = 4;  // a replica's sweep is one request at a time
  o.max_queue = 64;
  o.max_wait = std::chrono::hours(1);  // the simulated clock: a pace's wait is minutes
  return o;
}

serve::ServerOptions server_options() {
  serve::ServerOptions o;
  o.listen = {"127.0.0.1:0"};
  o.threads = 1;
  o.stream_body = proxy::streams_upload;
  return o;
}

TransportOptions client_options(Meter& meter, FastClock& clock) {
  TransportOptions o;
  o.meter = &meter;
  o.clock = &clock;
  o.lane_header = "X-Forgemeter-Lane";  // the proxy's: the lane its client names
  o.timeout = std::chrono::hours(2);    // the proxy's pace is the wait, on the simulated clock
  return o;
}

}  // namespace

ProxiedSweep::ProxiedSweep(Meter& meter, FastClock& clock, const testforge::Forge& forge, const DemoPlan& plan,
                           const AppJwtSigner& app)
    : upstream_(upstream_options(meter, clock, forge, plan)),
      forwarder_(forwarder_options(forge, clock, app), upstream_),
      server_(server_options(), forwarder_.handler()),
      client_meter_({.clock = &clock, .sink = [](std::string_view) {}}),
      client_(client_options(client_meter_, clock)) {
  if (auto why = server_.start()) throw std::runtime_error("the demo's proxy: " + *why);
  base_ = "http://" + server_.addresses().at(0);
}

ProxiedSweep::~ProxiedSweep() {
  server_.stop(std::chrono::milliseconds(0));
  forwarder_.stop();
}

}  // namespace forgemeter::demo
