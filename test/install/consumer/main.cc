// Built against an installed forgemeter (every component, forgemeter::forgemeter):
// takes a lease in a MemoryStore and checks the lane name rules; the meter
// alone is consumer_meter's.
#include <forgemeter/lane.h>
#include <forgemeter/memory_store.h>

#include <cstdio>

int main() {
  forgemeter::MemoryStore store;
  const auto& clock = forgemeter::system_clock();
  const auto r = store.acquire("consumer", "me", clock.now(), std::chrono::seconds(10),
                               forgemeter::Deadline::after(clock, std::chrono::seconds(1)));
  if (r.status != forgemeter::LeaseStatus::granted || r.term != 1) return 1;
  if (forgemeter::Lane{"consumer"}.name() != "consumer") return 2;
  std::puts("lease granted, term 1");
  return 0;
}
