// Exclusion when an operator makes a mistake, on etcd (test/lease/exclusion.h;
// a one-member cluster): two campaigns given one owner name, each on its own
// store object (its own connections, as two processes), are two holders; a
// record put by hand through the gateway at term 2^64 − 1 is refused with the
// reason, where the term used to wrap to 0.
#include <doctest/doctest.h>

#include <string>

#include "forgemeter/etcd_store.h"
#include "lease/etcd/codec.h"
#include "lease/exclusion.h"
#include "support/etcd_cluster.h"
#include "support/skips.h"

namespace {

bool no_etcd() {
  return !fmtest::EtcdCluster::available() &&
         (fmtest::skipped("no etcd binary on PATH (Debian package etcd-server): the etcd tests did not run"), true);
}

}  // namespace

TEST_SUITE_BEGIN("etcd exclusion" * doctest::skip(no_etcd()));

TEST_CASE("etcd exclusion: a second campaign with the same owner is refused as another owner") {
  fmtest::EtcdCluster cluster(1);
  forgemeter::EtcdStore a(forgemeter::EtcdStoreOptions::from_uri(cluster.uri("/excl/")));
  forgemeter::EtcdStore b(forgemeter::EtcdStoreOptions::from_uri(cluster.uri("/excl/")));
  fmtest::same_owner_is_refused(a, b, "same-owner");
}

TEST_CASE("etcd exclusion: a term at 2^64 - 1 cannot increase: refused with the reason, never wrapped to 0") {
  fmtest::EtcdCluster cluster(1);
  forgemeter::EtcdStore store(forgemeter::EtcdStoreOptions::from_uri(cluster.uri("/excl/")));
  const auto put = [&](const std::string& name, const std::string& value) {
    using forgemeter::etcd::base64;
    return cluster.post(0, "/v3/kv/put",
                        R"({"key":")" + base64("/excl/" + name) + R"(","value":")" + base64(value) + R"("})");
  };
  REQUIRE_FALSE(put("free", R"({"holder":"","expiry_ms":0,"term":18446744073709551615})").empty());
  fmtest::term_cannot_increase(store, "free", 18446744073709551615ULL);
  REQUIRE_FALSE(put("held", R"({"holder":"old","expiry_ms":1000,"term":18446744073709551615})").empty());
  fmtest::term_cannot_increase(store, "held", 18446744073709551615ULL);
}

TEST_SUITE_END();
