#include "demo/demo_fleet.h"

#include <fmt/format.h>

#include "forgemeter/elected_lane.h"
#include "meter/civil.h"

namespace forgemeter::demo {

using meter::clock_text;

namespace {

MeterOptions meter_options(FastClock& clock, LineSink sink) {
  MeterOptions o;
  o.clock = &clock;
  o.sink = std::move(sink);
  return o;
}

TransportOptions transport_options(Meter& meter, FastClock& clock, const testforge::Forge& forge,
                                   std::size_t cache_bytes = 0) {
  TransportOptions o;
  o.cache.max_bytes = cache_bytes;
  o.meter = &meter;
  o.clock = &clock;
  o.resolve = forge.resolve();
  o.lane_header = std::string(testforge::kLaneHeader);
  return o;
}

TransportOptions paced_options(Meter& meter, FastClock& clock, const testforge::Forge& forge, const DemoPlan& plan) {
  TransportOptions o = transport_options(meter, clock, forge);
  o.rate_limits.pacing.lanes = {
      {.lane = Lane(kSweepLane), .installation = plan.installation, .keep_fraction = plan.keep_fraction}};
  return o;
}

}  // namespace

Replica::Replica(int index, std::string name, const DemoPlan& plan, FastClock& clock, const testforge::Forge& forge,
                 const AppJwtSigner& app, LineSink sink)
    : index_(index),
      name_(std::move(name)),
      plan_(plan),
      clock_(clock),
      forge_(forge),
      meter_(meter_options(clock, std::move(sink))),
      transport_(transport_options(meter_, clock, forge)),
      cached_(transport_options(meter_, clock, forge, plan.cache_bytes)),
      paced_(paced_options(meter_, clock, forge, plan)),
      proxied_(plan.hours >= 4 ? std::make_unique<ProxiedSweep>(meter_, clock, forge, plan, app) : nullptr),
      token_(app, plan.installation, clock, forge.url(testforge::kHosts[0], "")),
      proxied_token_(proxied_ ? std::make_unique<InstallationToken>(app, plan.installation, clock, proxied_->base())
                              : nullptr),
      offset_(std::chrono::seconds((index * 37) % 50)) {}

bool Replica::wait_until(UtcMillis t, const std::stop_token& stop) {
  return clock_.wait_until(clock_.steady_at(t), stop) && !stop.stop_requested();
}

bool Replica::get(const std::string& path, std::optional<std::string_view> lane, Transport& through, HourEnd& end,
                  const std::string& base) {
  // Through a proxy, with the token minted through it: the proxy learned its
  // installation from the forge's answer, and charges the request to it.
  const bool proxied = !base.empty();
  const auto token = proxied ? proxied_token_->token(proxied_->client(), end) : token_.token(transport_, end);
  if (!token) return false;
  Request r;
  r.url = proxied ? base + path : forge_.url(testforge::kHosts[0], path);
  r.bearer = *token;
  r.installation = plan_.installation;
  if (lane) r.lane = Lane(*lane);
  return end.perform(through, std::move(r)).has_value();
}

bool Replica::pass(int n, const std::stop_token& stop, Transport& through, HourEnd& end, const std::string& base) {
  const bool deep = n % 30 == 0;
  const int runs = deep ? plan_.deep_runs : plan_.light_runs;
  for (int run = 0; run < runs; ++run) {
    const int pull = 1000 + run;
    if (stop.stop_requested() || !get(fmt::format("/repos/acme/app/pulls/{}", pull), kSweepLane, through, end, base) ||
        !get(fmt::format("/repos/acme/app/commits/{:040x}/status", pull), kSweepLane, through, end, base))
      return false;
  }
  return true;
}

void Replica::sweep_unelected(UtcMillis from, UtcMillis until, HourEnd& end, bool paced) {
  const std::stop_token stop = end.loops();
  int n = 0;
  for (UtcMillis t = from + offset_; t < until; t += std::chrono::minutes(1))
    if (!wait_until(t, stop) || !pass(n++, stop, paced ? paced_ : transport_, end)) return;
}

void Replica::sweep_proxied(UtcMillis from, UtcMillis until, HourEnd& end) {
  const std::stop_token stop = end.loops();
  int n = 0;
  for (UtcMillis t = from + offset_; t < until; t += std::chrono::minutes(1))
    if (!wait_until(t, stop) || !pass(n++, stop, proxied_->client(), end, proxied_->base())) return;
}

void Replica::sweep_elected(LeaseStore& store, HourEnd& end, std::vector<std::string>& events, std::mutex& events_mu) {
  CampaignSpec spec;
  spec.owner = name_;
  spec.ttl = std::chrono::minutes(3);    // three sweep intervals
  spec.retry = std::chrono::minutes(1);  // one interval
  spec.clock = &clock_;
  spec.on_event = [this, &events, &events_mu](const LeaseEvent& e) {
    std::lock_guard lock(events_mu);
    events.push_back(clock_text(std::chrono::floor<std::chrono::seconds>(clock_.now())) + " " + e.text);
  };
  // A term that ends (its lease lost, or the hour) starts no more requests;
  // the one on the wire lands, as at the hour's end.
  elect(cached_, Lane(kSweepLane), store, spec, end.loops(), [this, &end](Term& term) {
    std::stop_token ts = term.stop_token();
    UtcMillis t = clock_.now();
    for (int n = 0; wait_until(t, ts) && pass(n, ts, cached_, end); ++n) t += std::chrono::minutes(1);
  });
}

void Replica::background(UtcMillis from, UtcMillis until, HourEnd& end) {
  const std::stop_token stop = end.loops();
  for (UtcMillis t = from + offset_ + std::chrono::seconds(5); t < until; t += std::chrono::minutes(2))
    if (!wait_until(t, stop) || !get("/repos/acme/app", std::nullopt, transport_, end)) return;
}

void Replica::searches(UtcMillis from, UtcMillis until, HourEnd& end, UtcMillis burst_at, int burst) {
  const std::stop_token stop = end.loops();
  const std::string query = "/search/issues?q=repo:acme/app+is:pr+is:open+label:merge-queue";
  bool burst_done = index_ != 0 || burst == 0;
  for (UtcMillis t = from + offset_ + std::chrono::seconds(20); t < until;) {
    const bool bursting = !burst_done && burst_at <= t;
    if (!wait_until(bursting ? burst_at : t, stop)) return;
    if (bursting) {
      // "At once": simulated time stands still while they go out one by one, so
      // that all of them land in one minute of the bucket however slowly this
      // machine sends them (at 1200x, 36 requests of 2 ms each would span 86 s).
      clock_.freeze();
      for (int i = 0; i < burst; ++i)
        if (!get(query, kSearchLane, transport_, end)) break;
      clock_.resume();
      burst_done = true;
      continue;
    }
    if (!get(query, kSearchLane, transport_, end)) return;
    t += std::chrono::minutes(5);
  }
}

}  // namespace forgemeter::demo
