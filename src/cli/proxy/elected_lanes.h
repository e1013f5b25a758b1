// elected_lanes.h — `forgemeter proxy --elect LANE`: a campaign for each
// elected lane, on the lease named after it, through the elector
// (src/elector), and the lane gated in the proxy's Transport: a request in
// it goes under the term this replica led when the request began, and the
// Transport sends it only while that very term is still led (its gate asks
// before every hop); otherwise it is refused unsent (lane_refused, counted
// as refused by the meter) and the client gets 503 naming the holder and
// its term (proxy::lane_not_led).
//
// Stepping down — a stop, a `lease resign`, a refused renewal, no renewal
// proven in time — goes in this order: the elector stops saying leader,
// which closes the gate (it reads the same state); the lane's requests
// already under the term finish, or are cancelled after `drain`; the
// promises the elector handed out are waited out (the proxy hands none);
// then the lease is released and the store wakes the successor.
//
// Thread-safety: enter() and refused() from any worker; start(), stop() and
// exit_now() from the command's thread. Ownership: the store and the
// Transport are borrowed and must outlive this; the lanes are ungated when
// it is destroyed. Errors: the constructor throws std::invalid_argument as
// elector::Elector's does.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "elector/elector.h"
#include "forgemeter/transport.h"
#include "proxy/forwarder/lane_fence.h"

namespace forgemeter::cli {

class ElectedLanes final : public proxy::LaneFence {
 public:
  // `o.names`: the elected lanes; `drain`: how long a step-down waits for
  // the lane's requests before it cancels them.
  ElectedLanes(LeaseStore& store, Transport& transport, elector::ElectorOptions o, Duration drain);
  ~ElectedLanes() override;
  ElectedLanes(const ElectedLanes&) = delete;
  ElectedLanes& operator=(const ElectedLanes&) = delete;

  void start();
  // Every lane steps down as above and is released; the campaigns end. Blocks.
  void stop();
  void exit_now();  // a second signal: no waiting (for requests or promises), no release (the lease expires)

  // The lanes' campaigns as `lease serve` reports them: their lease
  // families, and nullopt or why one is stuck (its store silent for a TTL).
  std::string prometheus() const { return elector_->prometheus(); }
  std::optional<std::string> health() const { return elector_->health(); }

  std::optional<proxy::FencePass> enter(Lane lane) override;
  proxy::Refusal refused(Lane lane) override;

 private:
  struct Elected;
  Elected* find(Lane lane) const;
  void drain(const std::string& name);

  Transport& transport_;
  const Duration drain_, retry_;
  std::vector<std::unique_ptr<Elected>> lanes_;
  std::unique_ptr<elector::Elector> elector_;
  std::atomic<bool> exiting_{false};
};

}  // namespace forgemeter::cli
