// elect(): a lease tied to the transport's lane gate (forgemeter/elected_lane.h).
#include "forgemeter/elected_lane.h"

#include <optional>
#include <stdexcept>
#include <string>

#include "core/mutex.h"

namespace forgemeter {
namespace {

// The term the gate reads: the current one, or the last (invalid forever once
// ended), or none yet. Written by each term's work thread as it begins.
struct CurrentTerm {
  core_detail::Mutex mu;
  std::optional<Term> term GUARDED_BY(mu);

  bool valid() {
    core_detail::MutexLock lock(mu);
    return term && term->valid();
  }
  void set(const Term& t) {
    core_detail::MutexLock lock(mu);
    term = t;
  }
};

}  // namespace

CampaignEnd elect(Transport& transport, Lane lane, LeaseStore& store, CampaignSpec spec, std::stop_token stop,
                  std::function<void(Term&)> work) {
  if (lane.is_other()) throw std::invalid_argument("elect: the lane of untagged requests (`other`) cannot be elected");
  if (spec.name.empty()) spec.name = std::string(lane.name());
  if (spec.name != lane.name())
    throw std::invalid_argument("elect: the lease of lane `" + std::string(lane.name()) +
                                "` is named after it; leave CampaignSpec::name empty");
  if (auto why = check_campaign_spec(spec)) throw std::invalid_argument("elect: " + *why);
  if (!work) throw std::invalid_argument("elect: no work given");

  auto current = std::make_shared<CurrentTerm>();
  transport.gate_lane(lane, [current] { return current->valid(); });
  return campaign(store, spec, std::move(stop), [&, current](Term& term) {
    current->set(term);
    LaneScope scope{lane};
    work(term);
  });
}

}  // namespace forgemeter
