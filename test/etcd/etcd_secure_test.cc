// EtcdStore on clusters that ask for credentials: TLS with client
// certificates (a test CA made here with the openssl command), and etcd's
// user/password authentication with a token that expires every second. The
// right credentials work; a wrong certificate or password is a clear,
// permanent error that carries no secret.
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <thread>

#include "forgemeter/etcd_store.h"
#include "support/etcd_cluster.h"
#include "support/process.h"
#include "support/skips.h"

using namespace std::chrono_literals;
using fmtest::EtcdCluster;
using forgemeter::EtcdStore;
using forgemeter::EtcdStoreOptions;
using forgemeter::LeaseState;
using forgemeter::LeaseStatus;
using forgemeter::test::run_process;
using forgemeter::test::TempDir;

namespace {

bool skipping() {
  if (EtcdCluster::available() && !forgemeter::test::find_on_path("openssl").empty()) return false;
  fmtest::skipped("no etcd or openssl binary on PATH (etcd-server, openssl): the etcd TLS/auth tests did not run");
  return true;
}

forgemeter::Deadline soon() { return forgemeter::Deadline::after(forgemeter::system_clock(), 5s); }

void sh(const std::string& script) {
  const auto r = run_process({"/bin/sh", "-ec", script});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
}

// A CA, a certificate for the members (127.0.0.1; also usable as a client's),
// a client certificate from the CA, and one from a CA nobody trusts.
void make_certificates(const TempDir& d) {
  const std::string p = d.path() + "/";
  sh("cd " + p +
     "; openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=fm-test-ca "
     "-keyout ca.key -out ca.pem 2>/dev/null"
     "; openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=fm-other-ca "
     "-keyout other-ca.key -out other-ca.pem 2>/dev/null"
     "; printf 'subjectAltName=IP:127.0.0.1\\nextendedKeyUsage=serverAuth,clientAuth\\n' > server.ext"
     "; printf 'extendedKeyUsage=clientAuth\\n' > client.ext"
     "; for who in server:ca client:ca stranger:other-ca; do n=${who%%:*}; ca=${who#*:}"
     "; openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=$n -keyout $n.key -out $n.csr "
     "2>/dev/null"
     "; ext=client.ext; [ $n = server ] && ext=server.ext"
     "; openssl x509 -req -in $n.csr -CA $ca.pem -CAkey $ca.key -CAcreateserial -days 1 -extfile $ext -out $n.pem "
     "2>/dev/null; done");
}

}  // namespace

TEST_SUITE_BEGIN("etcd secure" * doctest::skip(skipping()));

TEST_CASE("etcd over TLS with client certificates: the CA's client connects; a stranger's certificate is refused") {
  TempDir d;
  make_certificates(d);
  EtcdCluster cluster(3, {d.file("ca.pem"), d.file("server.pem"), d.file("server.key"), true});
  const std::string uri = cluster.uri("/tls/") + "?cacert=" + d.file("ca.pem");
  auto good = EtcdStoreOptions::from_uri(uri + "&cert=" + d.file("client.pem") + "&key=" + d.file("client.key"));
  CHECK(good.endpoints.front().rfind("https://", 0) == 0);
  EtcdStore store(good);
  auto r = store.acquire("sweep", "a", forgemeter::system_clock().now(), 10s, soon());
  INFO(r.error);
  CHECK(r.status == LeaseStatus::granted);

  EtcdStore stranger(
      EtcdStoreOptions::from_uri(uri + "&cert=" + d.file("stranger.pem") + "&key=" + d.file("stranger.key")));
  const LeaseState stranger_saw = stranger.inspect("sweep", soon());
  INFO(stranger_saw.error);
  CHECK(stranger_saw.status == LeaseState::Status::no_answer);
  CHECK(stranger_saw.error.find("permanent") != std::string::npos);

  EtcdStore untrusting(EtcdStoreOptions::from_uri(cluster.uri("/tls/") + "?cacert=" + d.file("other-ca.pem") +
                                                  "&cert=" + d.file("client.pem") + "&key=" + d.file("client.key")));
  const LeaseState untrusting_saw = untrusting.inspect("sweep", soon());
  INFO(untrusting_saw.error);
  CHECK(untrusting_saw.status == LeaseState::Status::no_answer);
  CHECK(untrusting_saw.error.find("permanent") != std::string::npos);
}

TEST_CASE(
    "etcd with users: the password works and the token is fetched again when it expires; a wrong one is "
    "refused for good, never echoed") {
  EtcdCluster cluster(3, {}, {"--auth-token=simple", "--auth-token-ttl=1"});
  for (const auto& [path, body] : {std::pair{"/v3/auth/user/add", R"({"name":"root","password":"s3cret-pw"})"},
                                   {"/v3/auth/role/add", R"({"name":"root"})"},
                                   {"/v3/auth/user/grant", R"({"user":"root","role":"root"})"},
                                   {"/v3/auth/enable", "{}"}})
    REQUIRE_MESSAGE(!cluster.post(0, path, body).empty(), path);

  EtcdStore store(EtcdStoreOptions::from_uri("etcd://root:s3cret-pw@" + cluster.uri("/auth/").substr(7)));
  const auto& clock = forgemeter::system_clock();
  auto r = store.acquire("sweep", "a", clock.now(), 10s, soon());
  INFO(r.error);
  CHECK(r.status == LeaseStatus::granted);
  // The simple token lives 1 s (--auth-token-ttl=1) after its last use: wait it out (2 s of margin).
  std::this_thread::sleep_for(3s);
  r = store.renew("sweep", "a", clock.now(), 10s, soon());
  INFO(r.error);
  CHECK(r.status == LeaseStatus::granted);

  EtcdStore wrong(EtcdStoreOptions::from_uri("etcd://root:not-it@" + cluster.uri("/auth/").substr(7)));
  const LeaseState wrong_saw = wrong.inspect("sweep", soon());
  INFO(wrong_saw.error);
  CHECK(wrong_saw.status == LeaseState::Status::no_answer);
  CHECK(wrong_saw.error.find("permanent") != std::string::npos);
  CHECK(wrong_saw.error.find("root") != std::string::npos);
  CHECK(wrong_saw.error.find("not-it") == std::string::npos);

  EtcdStore anonymous(EtcdStoreOptions::from_uri(cluster.uri("/auth/")));
  const LeaseState anonymous_saw = anonymous.inspect("sweep", soon());
  INFO(anonymous_saw.error);
  CHECK(anonymous_saw.status == LeaseState::Status::no_answer);
  CHECK(anonymous_saw.error.find("permanent") != std::string::npos);
}

TEST_SUITE_END();
