// The lease store conformance suite (test/lease/conformance.h) against
// EtcdStore on a real three-member etcd cluster (one for the whole binary): a
// fresh key prefix per test, and every peer() a separate store object with
// its own connections, so the 8-candidate races run each candidate on its own
// connection, spread over the members.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>

#include "forgemeter/etcd_store.h"
#include "lease/conformance.h"
#include "support/etcd_cluster.h"
#include "support/skips.h"

namespace {

fmtest::EtcdCluster& cluster() {
  static fmtest::EtcdCluster c(3);
  return c;
}

bool skipping() {
  if (fmtest::EtcdCluster::available()) return false;
  fmtest::skipped("no etcd binary on PATH (Debian package etcd-server): the etcd tests did not run");
  return true;
}

struct EtcdFactory final : forgemeter::conformance::StoreFactory {
  std::shared_ptr<forgemeter::LeaseStore> fresh() override {
    static std::atomic<int> n{0};
    options = forgemeter::EtcdStoreOptions::from_uri(cluster().uri("/conformance/" + std::to_string(++n)));
    return make();
  }
  std::shared_ptr<forgemeter::LeaseStore> peer(const std::shared_ptr<forgemeter::LeaseStore>&) override {
    // Each peer starts at another member: the races cross the cluster.
    std::rotate(options.endpoints.begin(), options.endpoints.begin() + 1, options.endpoints.end());
    return make();
  }
  std::shared_ptr<forgemeter::LeaseStore> make() { return std::make_shared<forgemeter::EtcdStore>(options); }
  forgemeter::EtcdStoreOptions options;
};

}  // namespace

TEST_SUITE_BEGIN("etcd conformance" * doctest::skip(skipping()));
FORGEMETER_LEASE_CONFORMANCE("etcd", EtcdFactory)
TEST_SUITE_END();
