// docs/metrics.md's "A Transport in your registry" and "A campaign in your
// registry": a service's Exposer serving a Transport's and a campaign's
// families beside its own Registry. Runs offline (127.0.0.1, port 0).
#include <prometheus/exposer.h>
#include <prometheus/registry.h>

#include <cstdio>
#include <memory>

#include "forgemeter/lease_collectable.h"
#include "forgemeter/lease_metrics.h"
#include "forgemeter/meter.h"
#include "forgemeter/transport.h"
#include "forgemeter/transport_collectable.h"

int main() {
  forgemeter::Meter meter;
  auto registry = std::make_shared<prometheus::Registry>();  // the service's own families
  prometheus::Exposer exposer("127.0.0.1:0");                 // e.g. "0.0.0.0:9464"
  exposer.RegisterCollectable(registry);

  forgemeter::Transport transport({.meter = &meter, .max_installations = 1000});
  auto load = std::make_shared<forgemeter::TransportCollectable>(transport);
  exposer.RegisterCollectable(load);  // prometheus-cpp 1.0: beside your Registry

  forgemeter::LeaseMetrics metrics;  // the campaign's CampaignSpec::metrics
  auto lease = std::make_shared<forgemeter::LeaseCollectable>(metrics);
  exposer.RegisterCollectable(lease);  // prometheus-cpp 1.0: beside your Registry

  const forgemeter::TransportFigures now = transport.figures();  // plain data, any thread
  std::printf("serving /metrics on port %d; %zu installations seen\n", exposer.GetListeningPorts().front(),
              now.installations.size());
  exposer.RemoveCollectable(lease);  // before the LeaseMetrics goes
  exposer.RemoveCollectable(load);   // before the Transport goes
}
