// elector.h — `forgemeter lease serve`'s engine: a campaign for each named
// lease, an observer of each (who holds it when this replica does not), and
// the LeaseView the endpoints answer from (routes.h).
//
// Each term this replica wins is served by a LeaseView: leader while the
// term is valid. When the term ends — a stop, a resign, a refusal, a
// step-down — the view first stops saying leader and tells the streams,
// then on_step_down runs (the proxy's lane requests end), then the term's
// work waits out the longest promise handed out, and only then returns, so the campaign's release comes after every promise ended
// (lease_view.h; docs/elector.md). exit_now() cuts that wait short and, with
// it, the release (the lease then expires: the promises still end first).
//
// Threads: start() starts two per lease (the campaign, the observer) and one
// ticker (long polls at their end, heartbeats); stop() joins them. Every
// method may be called from any thread. Errors: the constructor throws
// std::invalid_argument for a spec campaign() would refuse; store failures
// are events (ElectorOptions::on_event), never thrown.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "elector/lease_view.h"
#include "forgemeter/campaign.h"
#include "forgemeter/lease_metrics.h"

namespace forgemeter::elector {

// How much longer than its last promise a stopping leader waits before it
// releases: a request sent to the successor before that promise ended, and
// still on its way when the successor is elected, would count the
// successor's first promise from a sending inside the old one. Loopback and
// a LAN take well under it; it bounds such a trip (docs/elector.md).
inline constexpr Duration kInFlight = std::chrono::milliseconds(50);

struct ElectorOptions {
  std::vector<std::string> names;  // the leases, each campaigned for
  std::string owner;               // this replica's owner, as given (the store gets it tagged)
  Duration ttl{};
  std::optional<Duration> retry{}, serve_for{};
  Duration answer_validity = std::chrono::seconds(1);  // the cap on one promise, past its answer
  Duration heartbeat = std::chrono::seconds(15);       // a comment on every stream this often
  bool exit_on_loss = false;                           // no second term: on_loss at the first refusal or step-down
  const Clock* clock = nullptr;
  std::function<void(const LeaseEvent&)> on_event{};  // every campaign's events, for the log
  std::function<void(const std::string&)> on_loss{};  // exit_on_loss: the lease whose term was lost
  // A term of the lease `name` stopped answering leader: what must end
  // before the release (the proxy's requests in an elected lane), run on the
  // campaign's thread before the promises are waited out.
  std::function<void(const std::string& name)> on_step_down{};
};

class Elector {
 public:
  Elector(LeaseStore& store, ElectorOptions o);
  ~Elector();
  Elector(const Elector&) = delete;
  Elector& operator=(const Elector&) = delete;

  void start();
  // The promise-keeping stop: every term steps down, waits out its promises
  // and releases; the threads are joined. Idempotent; blocks.
  void stop();
  // Cuts a stop's waits and releases short (a second signal).
  void exit_now();

  // The lease `name`'s view, or nullptr when this elector does not serve it.
  LeaseView* view(std::string_view name) const;
  const std::vector<std::string>& names() const { return o_.names; }
  const Clock& clock() const { return clock_; }
  // This replica's term of `name` ends as for a stop (promises kept, the
  // lease released), and it stays out one TTL. Its term, or nullopt when it
  // does not lead `name`.
  std::optional<std::uint64_t> resign(std::string_view name);
  // A long poll (LeaseView::await_change) answered by the ticker at `until`.
  void await_change(LeaseView& view, serve::Reply reply, SteadyTime arrived, SteadyTime until);
  // The server stops: every stream ended, every long poll answered.
  void end_clients();
  // nullopt, or why a campaign is stuck (LeaseMetrics::health()), naming its lease.
  std::optional<std::string> health() const;
  // Every lease's families (docs/metrics.md, "A campaign") in one Prometheus text.
  std::string prometheus() const;

 private:
  struct Lease;
  void run_campaign(Lease& l);
  void serve_term(Lease& l, Term& term);
  void run_ticker(const std::stop_token& stop);
  CampaignSpec spec_for(Lease& l);

  LeaseStore& store_;
  const ElectorOptions o_;
  const Clock& clock_;
  std::vector<std::unique_ptr<Lease>> leases_;
  std::stop_source stop_, exit_now_, ticker_stop_;
  std::mutex tick_mu_;
  std::condition_variable_any tick_cv_;
  bool tick_soon_ = false;
  std::jthread ticker_;
  std::atomic<bool> stopped_{false};
};

}  // namespace forgemeter::elector
