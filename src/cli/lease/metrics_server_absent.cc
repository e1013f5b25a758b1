// MetricsServer (metrics_server.h) in a build without forgemeter's
// prometheus component (FORGEMETER_PROMETHEUS=OFF): --metrics-addr is refused.
#include "cli/errors.h"
#include "cli/lease/metrics_server.h"

namespace forgemeter::cli {

struct MetricsServer::Impl {};

MetricsServer::MetricsServer(const std::string&, const LeaseMetrics&) {
  throw UsageError(
      "--metrics-addr: this forgemeter was built without prometheus-cpp (FORGEMETER_PROMETHEUS=OFF); "
      "build it with Debian's prometheus-cpp-dev installed");
}

void MetricsServer::serve() {}

MetricsServer::~MetricsServer() = default;

}  // namespace forgemeter::cli
