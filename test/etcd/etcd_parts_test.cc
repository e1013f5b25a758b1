// The etcd store's parts that need no cluster: its URI, the lease record as
// a key's value, and what it makes of answers etcd would never send.
#include <doctest/doctest.h>

#include <stdexcept>

#include "forgemeter/etcd_store.h"
#include "lease/etcd/codec.h"

using forgemeter::EtcdStoreOptions;
using namespace forgemeter::etcd;
using forgemeter::lease_detail::LeaseRecord;

TEST_CASE("etcd URI: members, prefix, TLS files, credentials; redacted without the password") {
  auto o = EtcdStoreOptions::from_uri("etcd://127.0.0.1:2379,127.0.0.1:22379,[::1]:32379/forgemeter/leases");
  CHECK(o.endpoints ==
        std::vector<std::string>{"http://127.0.0.1:2379", "http://127.0.0.1:22379", "http://[::1]:32379"});
  CHECK(o.prefix == "/forgemeter/leases/");
  CHECK(o.user.empty());
  CHECK(o.redacted() == "etcd://127.0.0.1:2379,127.0.0.1:22379,[::1]:32379/forgemeter/leases/");

  o = EtcdStoreOptions::from_uri("etcds://svc:p%40ss%3Aword@etcd-1:2379/x?cacert=/ca.pem&cert=/c.pem&key=/k.pem");
  CHECK(o.endpoints == std::vector<std::string>{"https://etcd-1:2379"});
  CHECK(o.user == "svc");
  CHECK(o.password == "p@ss:word");
  CHECK(o.ca_file == "/ca.pem");
  CHECK(o.cert_file == "/c.pem");
  CHECK(o.key_file == "/k.pem");
  CHECK(o.redacted() == "etcds://svc:***@etcd-1:2379/x/?cacert=/ca.pem&cert=/c.pem&key=/k.pem");

  o = EtcdStoreOptions::from_uri("etcd://etcd");  // default port, default prefix
  CHECK(o.endpoints == std::vector<std::string>{"http://etcd:2379"});
  CHECK(o.prefix == "/forgemeter/leases/");
}

TEST_CASE("etcd URI: anything else is refused with the reason, never the password") {
  for (std::string bad : {"postgres://x", "etcd://", "etcd://h:0", "etcd://h:70000", "etcd://h:2x", "etcd://a,,b",
                          "etcd://:secret@h", "etcd://h?cert=/c.pem", "etcd://h?verify=no", "etcd://h\n:1"}) {
    CAPTURE(bad);
    try {
      (void)EtcdStoreOptions::from_uri(bad);
      FAIL("accepted");
    } catch (const std::invalid_argument& e) {
      CHECK(std::string(e.what()).rfind("etcd store URI: ", 0) == 0);
      CHECK(std::string(e.what()).find("secret") == std::string::npos);
    }
  }
  CHECK_THROWS_AS(forgemeter::EtcdStore(EtcdStoreOptions{}), std::invalid_argument);  // no endpoint
  CHECK_THROWS_AS(forgemeter::EtcdStore(EtcdStoreOptions{.endpoints = {"ftp://h"}}), std::invalid_argument);
}

TEST_CASE("etcd record: any holder text round-trips; values this store did not write are not records") {
  for (std::string holder : {"", "web-3", "quote\" back\\slash\nnewline", "Grüße 東京 🚀"}) {
    const LeaseRecord r{holder, forgemeter::UtcMillis(std::chrono::milliseconds(1790000000123)), 42};
    const auto back = parse_record(*unbase64(base64(record_value(r))));
    REQUIRE(back);
    CHECK(*back == r);
  }
  for (const char* v : {"", "null", "[]", "{}", R"({"holder":1,"expiry_ms":0,"term":0})",
                        R"({"holder":"a","expiry_ms":"0","term":0})", R"({"holder":"a","expiry_ms":0,"term":-1})"})
    CHECK_FALSE(parse_record(v));
  CHECK(base64("") == "");
  CHECK(*unbase64("") == "");
  CHECK(*unbase64("YQ==") == "a");
  CHECK(*unbase64("YWI=") == "ab");
  CHECK_FALSE(unbase64("YQ="));
  CHECK_FALSE(unbase64("!!!!"));
}

TEST_CASE("etcd answers: hostile or truncated bodies are errors, never a lease") {
  std::string error;
  for (const char* body :
       {"", "{", "[]", R"({"kvs":{}})", R"({"kvs":[{"mod_revision":"x","value":"e30="}]})",
        R"({"kvs":[{"mod_revision":"3","value":"%%%%"}]})", R"({"kvs":[{"mod_revision":"3","value":"e30="}]})"}) {
    CAPTURE(body);
    error.clear();
    CHECK_FALSE(parse_range(body, error));
    CHECK_FALSE(error.empty());
  }
  auto absent = parse_range(R"({"header":{"revision":"7"}})", error);
  REQUIRE(absent);
  CHECK(absent->mod_revision == 0);
  CHECK(absent->record == LeaseRecord{});
  const LeaseRecord mine{"a", forgemeter::UtcMillis(std::chrono::milliseconds(5)), 1};
  auto won = parse_txn(R"({"header":{"revision":"9"},"succeeded":true})", mine, error);
  REQUIRE(won);
  CHECK(won->succeeded);
  CHECK(won->kv.mod_revision == 9);
  CHECK_FALSE(parse_txn(R"({"succeeded":true})", mine, error));  // no revision: cannot be trusted
  CHECK_FALSE(parse_txn(R"({"responses":[]})", mine, error));
  const GatewayError e = parse_error(R"({"error":"etcdserver: no leader","code":14})");
  CHECK(e.code == 14);
  CHECK(e.message == "etcdserver: no leader");
}
