// demo_fleet.h — the demo's replicas: each its own Meter and Transport, all on
// one accelerated clock, sweeping a merge gate against the loopback forge.
//
// The sweep (ADR-117's merge-gate sweeper, sized by DemoPlan): every simulated
// minute a pass re-reads the pull and the status of each run gated in the last
// hour (`light_runs` runs, 2 requests each); every 30th pass of a term (and
// the first) is deep: the runs of the last 8 days (`deep_runs`, 2 requests
// each). Besides it, each replica sends one untagged request (lane `other`)
// every 2 simulated minutes and one search (lane `pr-search`, GitHub's
// per-minute `search` bucket) every 5; in hour 2 one replica runs a burst of
// searches that spends that bucket: limited for a minute, not the hour's budget.
//
// Hour 1 every replica sweeps; in hour 2 the sweep's lane is elected through
// the lease (forgemeter::elect), so one replica sweeps, through a Transport of
// its replica with the conditional cache (TransportOptions::cache): a re-read
// is revalidated, and the forge charges its 304 nothing. In hour 3 every
// replica sweeps again, unelected, through a Transport that paces the sweep's
// lane (rate_limits.pacing) to keep `keep_fraction` of the budget at the
// reset: none of them knows the others, the forge's readings say enough.
// In hour 4 each replica sweeps through a `forgemeter proxy` of its own
// (proxied_sweep.h) that caches and paces as hours 2 and 3 did, its client
// changed in nothing but its base URL.
//
// Each replica authenticates as a GitHub App's client does: it mints its own
// installation token with the App's key (installation_token.h) and renews it
// with a minute left; in hour 4 its sweep mints through its proxy, which
// learns the token's installation from the forge's answer.
//
// Thread-safety: a Replica's loops run on threads of their own; its meter's
// lines go to the sink it was given (a FleetLog's).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "demo/app_jwt_signer.h"
#include "demo/fast_clock.h"
#include "demo/hour_end.h"
#include "demo/installation_token.h"
#include "demo/proxied_sweep.h"
#include "forgemeter/lease.h"
#include "forgemeter/meter.h"
#include "forgemeter/transport.h"
#include "testforge/forge.h"

namespace forgemeter::demo {

inline constexpr std::string_view kSweepLane = "merge-gate-sweeper";
// Searches (GitHub's `search` bucket, 30 a minute, apart from `core`).
inline constexpr std::string_view kSearchLane = "pr-search";

struct DemoPlan {
  int replicas = 10;
  int hours = 4;
  double speed = 600;
  int light_runs = 11;
  int deep_runs = 120;
  std::uint64_t app = 4242;  // the GitHub App whose installation it is
  std::uint64_t installation = 101;
  std::uint64_t budget = 12'500;
  std::size_t cache_bytes = std::size_t{16} << 20;  // the elected sweep's cache
  double keep_fraction = 0.05;                      // what the paced sweep leaves at the reset
  UtcMillis start{};                                // the first hour's start (on the hour)

  UtcMillis hour_start(int h) const { return start + std::chrono::hours(h - 1); }  // h from 1
  // Per replica per hour, unelected: 2 x (58 light + 2 deep) passes' reads.
  std::uint64_t sweep_per_replica_hour() const {
    return 2 * static_cast<std::uint64_t>(58 * light_runs + 2 * deep_runs);
  }
};

class Replica {
 public:
  // `name`: as the replica signs its log (web-0, …); `sink`: where its meter's
  // lines go; `app`: the App whose JWTs it mints its tokens with.
  Replica(int index, std::string name, const DemoPlan& plan, FastClock& clock, const testforge::Forge& forge,
          const AppJwtSigner& app, LineSink sink);

  const std::string& name() const { return name_; }
  const Meter& meter() const { return meter_; }

  // Each loop below runs on `end`'s loops() and sends through it: it stops
  // starting requests when the hour ends, and those it sent land.
  //
  // Hours 1 and 3: passes at each minute (plus this replica's offset) from
  // `from` while before `until`; a pass late (a slow machine, or its pace)
  // starts the next at once. `paced`: through the Transport that paces the
  // sweep's lane (a request still waiting for its pace when the hour ends is
  // never sent).
  void sweep_unelected(UtcMillis from, UtcMillis until, HourEnd& end, bool paced);
  // Hour 4: as hour 3's, through this replica's proxy.
  void sweep_proxied(UtcMillis from, UtcMillis until, HourEnd& end);
  // Hour 2: campaigns for the sweep's lane; sweeps each term until it or the hour ends.
  void sweep_elected(LeaseStore& store, HourEnd& end, std::vector<std::string>& events, std::mutex& events_mu);
  // The untagged requests, every 2 minutes from `from` while before `until`;
  // and a search every 5 minutes (replica 0 also runs `burst` searches at once at `burst_at`).
  void background(UtcMillis from, UtcMillis until, HourEnd& end);
  void searches(UtcMillis from, UtcMillis until, HourEnd& end, UtcMillis burst_at, int burst);

  void flush() { meter_.flush(); }

 private:
  // false: stop sending (`stop` fired: the hour or the term ended; or `end` sends no more).
  // `base`: where the paths go ("": the forge).
  bool pass(int n, const std::stop_token& stop, Transport& through, HourEnd& end, const std::string& base = {});
  bool get(const std::string& path, std::optional<std::string_view> lane, Transport& through, HourEnd& end,
           const std::string& base = {});
  bool wait_until(UtcMillis t, const std::stop_token& stop);

  const int index_;
  const std::string name_;
  const DemoPlan& plan_;
  FastClock& clock_;
  const testforge::Forge& forge_;
  Meter meter_;
  Transport transport_;
  Transport cached_;                                  // the elected sweep's
  Transport paced_;                                   // the paced sweep's
  std::unique_ptr<ProxiedSweep> proxied_;             // hour 4's, when the plan has it
  InstallationToken token_;                           // minted at the forge through transport_
  std::unique_ptr<InstallationToken> proxied_token_;  // hour 4's sweep's: minted through its proxy
  std::chrono::seconds offset_;
};

}  // namespace forgemeter::demo
