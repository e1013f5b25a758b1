// forgemeter proxy: every client of a forge, in any language, metered,
// cached, paced and kept off secondary limits by changing one base URL
// (docs/proxy.md).
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/errors.h"
#include "cli/fetch/meter_log.h"
#include "cli/lease/duration_arg.h"
#include "cli/lease/say.h"
#include "cli/lease/serve_command.h"
#include "cli/number_arg.h"
#include "cli/proxy/elected_lanes.h"
#include "cli/proxy/proxy_options.h"
#include "cli/serve_options.h"
#include "meter/prometheus.h"
#include "proxy/forwarder/forward.h"
#include "serve/metrics_route.h"
#include "supervise/signal_watch.h"

namespace forgemeter::cli {
namespace {

// What the admin listener's /metrics says: the meter's families, then the
// proxy's own, then the elected lanes' campaigns (lease serve's families).
std::string metrics_text(const Meter& meter, const proxy::Forwarder& forwarder, const Serving& serving,
                         const ElectedLanes* elected) {
  MeterMetrics all = meter.metrics();
  MeterMetrics own = forwarder.families(serving.server->connections());
  for (auto& f : own.families) all.families.push_back(std::move(f));
  std::string text = meter::exposition(all);
  if (elected != nullptr) text += elected->prometheus();
  return text;
}

// Waits for SIGINT/SIGTERM (SIGHUP re-reads the TLS files), then stops as
// the serving room says: /readyz 503 for --shutdown-delay, the listeners
// closed, requests in flight given --shutdown-grace.
class StopSignal {
 public:
  // `again`: a second SIGINT/SIGTERM (cuts the campaigns' stop short).
  StopSignal(std::function<void()> reload, std::function<void()> again)
      : watch_([this, reload = std::move(reload), again = std::move(again)](int sig) {
          if (sig == SIGHUP) return reload();
          std::lock_guard lock(mu_);
          if (signal_ != 0) return again();
          signal_ = sig;
          came_.notify_all();
        }) {}
  void wait() {
    std::unique_lock lock(mu_);
    came_.wait(lock, [&] { return signal_ != 0; });
  }
  // Stops as a signal would (--exit-on-loss).
  void quit() {
    std::lock_guard lock(mu_);
    if (signal_ == 0) signal_ = -1;
    came_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable came_;
  int signal_ = 0;
  supervise::SignalWatch watch_;  // last: its thread uses the members above
};

// --elect: the store and the lanes' campaigns (started once the proxy
// serves). With --exit-on-loss a lost term stops the proxy as a signal does.
struct Election {
  std::unique_ptr<LeaseStore> store;
  std::unique_ptr<ElectedLanes> lanes;  // after the store: destroyed before it
  std::atomic<bool> lost{false};
};

void set_up_election(const ProxyArgs& a, const ProxyPlan& plan, Transport& transport, StopSignal& stop, Election& e) {
  elector::ElectorOptions o = *plan.election;
  o.on_event = [](const LeaseEvent& event) { say(event.text); };
  o.on_loss = [&e, &stop](const std::string& name) {
    say(fmt::format("lease \"{}\": the term was lost; --exit-on-loss: stopping (status {})", name, kExitLeaseLost));
    e.lost = true;
    stop.quit();
  };
  e.store = open_election_store(a.election, o.ttl);
  e.lanes = std::make_unique<ElectedLanes>(*e.store, transport, std::move(o), plan.drain);
}

// An elected lane whose store is silent is said on /healthz, as lease serve
// says it, but keeps it 200: the lane is refused meanwhile while every other
// lane still serves, and a restart would not bring the store back.
serve::Probe degraded_probe(const ElectedLanes* elected) {
  return [elected]() -> std::optional<std::string> { return elected != nullptr ? elected->health() : std::nullopt; };
}

int run_proxy(const ProxyArgs& a) {
  const ProxyPlan plan = plan_proxy(a);  // UsageError for options that cannot work
  const MeterLog meter_log(a.meter_log);
  Meter meter({.sink = meter_log.sink()});
  std::unique_ptr<Transport> transport;
  try {
    TransportOptions to = plan.transport;
    to.meter = &meter;
    transport = std::make_unique<Transport>(std::move(to));
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  std::unique_ptr<Serving> admin;
  std::atomic<serve::Server*> served{nullptr};  // SIGHUP's: its TLS files re-read
  std::atomic<ElectedLanes*> campaigns{nullptr};
  StopSignal stop(
      [&] {  // before any thread starts: they inherit its blocked signals
        if (serve::Server* s = served.load())
          if (auto why = s->reload_tls())
            fmt::print(stderr, "forgemeter proxy: SIGHUP: {}; the certificate before it still serves\n", *why);
      },
      [&] {
        if (ElectedLanes* e = campaigns.load()) e->exit_now();
      });
  Election election;
  if (plan.election) set_up_election(a, plan, *transport, stop, election);
  campaigns.store(election.lanes.get());
  ElectedLanes* const elected = election.lanes.get();
  std::unique_ptr<proxy::Forwarder> forwarder;
  try {
    forwarder = std::make_unique<proxy::Forwarder>(plan.forwarder, *transport, elected);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--upstream '{}': {}", a.upstream, e.what()));
  }
  const serve::Probe degraded = degraded_probe(elected);
  Serving serving =
      start_serving(a.serve, "--listen", a.listen, forwarder->handler(), {}, proxy::streams_upload, degraded);
  if (!a.admin_listen.empty())
    admin = std::make_unique<Serving>(start_serving(
        a.serve, "--admin-listen", {a.admin_listen},
        serve::metrics_route([&] { return metrics_text(meter, *forwarder, serving, elected); }), {}, {}, degraded));
  served.store(serving.server.get());
  for (const std::string& at : serving.server->addresses()) fmt::print(stderr, "forgemeter proxy: serving on {}\n", at);
  if (admin) fmt::print(stderr, "forgemeter proxy: metrics on {}\n", admin->server->addresses().at(0));
  if (elected != nullptr) elected->start();
  stop.wait();
  served.store(nullptr);
  const SteadyTime drained_at = system_clock().steady_now();
  serving.drain();
  if (admin) admin->drain();
  // While the listeners still serve: each elected lane steps down (gate
  // closed, its requests ended) and is released, so the successor need not
  // wait for --shutdown-delay.
  if (elected != nullptr) elected->stop();
  serving.stop_after_delay(drained_at);
  forwarder->stop();
  if (admin) admin->server->stop(std::chrono::milliseconds(0));
  meter.flush();  // the partial hour, marked `until …, stopping`
  if (auto why = meter_log.problem()) throw CommandError(*why);
  return election.lost ? kExitLeaseLost : kExitOk;
}

}  // namespace

void add_proxy(CLI::App& root, Action& action) {
  auto a = std::make_shared<ProxyArgs>();
  CLI::App* cmd = root.add_subcommand(
      "proxy",
      "A reverse proxy in front of one forge: point any client's API base URL at it and every request is metered "
      "(hourly lines, /metrics), revalidated through a cache, coalesced, paced and kept off secondary limits.\n"
      "With --elect LANE, only the replica leading the lease LANE sends the lane's requests; the others answer\n"
      "them 503 naming the holder. SIGTERM: /readyz 503, every elected lane stepped down and released, then\n"
      "the listeners closed after --shutdown-delay. Exit: 0 after a signal; 75 with --exit-on-loss when a\n"
      "term was lost; 1 when an address cannot be served or the store refuses; 2 usage. docs/proxy.md");
  add_proxy_options(*cmd, *a);
  add_serve_options(*cmd, a->serve);
  cmd->callback([a, &action] { action = [a] { return with_store_errors([&] { return run_proxy(*a); }); }; });
}

}  // namespace forgemeter::cli
