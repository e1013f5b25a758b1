// docs/metrics.md's "A Meter in your registry": a service's Exposer serving
// its own Registry and a Meter's families. Runs offline (127.0.0.1, port 0).
#include <prometheus/exposer.h>
#include <prometheus/registry.h>

#include <cstdio>
#include <memory>

#include "forgemeter/meter.h"
#include "forgemeter/prometheus.h"

int main() {
  forgemeter::Meter meter;  // the one the service's Transport records into
  auto registry = std::make_shared<prometheus::Registry>();  // the service's own families

  prometheus::Exposer exposer("127.0.0.1:0");  // e.g. "0.0.0.0:9464"
  exposer.RegisterCollectable(registry);
  auto forge = std::make_shared<forgemeter::MeterCollectable>(meter);
  exposer.RegisterCollectable(forge);  // prometheus-cpp 1.0: a Collectable goes to the Exposer
  std::printf("serving /metrics on port %d\n", exposer.GetListeningPorts().front());
  exposer.RemoveCollectable(forge);  // before the Meter goes
}
