// The etcd store's watch (src/lease/etcd/watcher.h) when its member dies: the
// watch moves to the next member by itself (waking its waiters when lost),
// and a release after that wakes a waiting candidate again. Margins: 10 s to
// reopen (a member's connection refused, 50 ms backoff, a loaded machine),
// 1 s for a wake-up.
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <thread>

#include "forgemeter/etcd_store.h"
#include "lease/wake_check.h"
#include "support/etcd_cluster.h"
#include "support/eventually.h"
#include "support/skips.h"

using namespace std::chrono_literals;
using fmtest::take_and_release_wake;
using fmtest::within;

namespace {

bool skipping() {
  if (fmtest::EtcdCluster::available()) return false;
  fmtest::skipped("no etcd binary on PATH (Debian package etcd-server): the etcd tests did not run");
  return true;
}

}  // namespace

TEST_CASE("etcd wake-ups: the watch's member SIGKILLed, the watch reopens on the next member" *
          doctest::skip(skipping())) {
  fmtest::EtcdCluster cluster(3);
  forgemeter::EtcdStore holder(forgemeter::EtcdStoreOptions::from_uri(cluster.uri("/watch/")));
  auto o = forgemeter::EtcdStoreOptions::from_uri(cluster.uri("/watch/"));
  o.attempt_timeout = 400ms;
  forgemeter::EtcdStore candidate(o);  // its watch opens on member 0, the first endpoint
  CHECK_FALSE(candidate.watching());
  candidate.change_mark("w");
  REQUIRE(fmtest::eventually([&] { return candidate.watching(); }, 10s));
  take_and_release_wake(holder, candidate, "w");

  const std::uint64_t mark = candidate.change_mark("w");
  cluster.kill(0);
  CHECK(candidate.wait_for_change("w", mark, within(10s)));  // losing the stream wakes the waiter
  REQUIRE(fmtest::eventually([&] { return candidate.watching(); }, 10s));
  take_and_release_wake(holder, candidate, "w");
}
