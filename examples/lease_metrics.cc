// The example of forgemeter/lease_metrics.h and docs/metrics.md, verbatim
// between the marks, so it stays code that compiles. Runs offline on the
// memory store: one term, whose work reads the figures (leader 1) and the
// exposition, then stops the campaign.
//
//   build/<dir>/examples/example_lease_metrics
#include <forgemeter/campaign.h>
#include <forgemeter/lease_metrics.h>
#include <forgemeter/memory_store.h>

#include <chrono>
#include <cstdio>
#include <stop_token>
#include <string>

int main() {
  forgemeter::MemoryStore store;
  std::stop_source stop;
  // --- as in forgemeter/lease_metrics.h and docs/metrics.md ---------------------
  forgemeter::LeaseMetrics metrics;
  forgemeter::CampaignSpec spec{.name = "merge-gate-sweeper",
                                .owner = forgemeter::make_owner_id(),
                                .ttl = std::chrono::minutes(3),
                                .metrics = &metrics};
  // on any thread, while campaign(store, spec, ...) runs:
  const forgemeter::LeaseFigures f = metrics.figures();
  const std::string text = metrics.prometheus();  // the lease families
  // -------------------------------------------------------------------------------
  if (f.leader || f.lease != "") return 1;  // nothing fed it yet
  bool led = false;
  std::string served;
  forgemeter::campaign(store, spec, stop.get_token(), [&](forgemeter::Term&) {
    led = metrics.figures().leader;
    served = metrics.prometheus();
    stop.request_stop();
  });
  std::fputs(served.c_str(), stdout);
  return led && !metrics.figures().leader && text.find("forgemeter_lease_leader{lease=\"\"} 0\n") != std::string::npos
             ? 0
             : 1;
}
