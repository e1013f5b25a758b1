// TLS: verified against the given CA, fail-closed against any other.
#include <doctest/doctest.h>

#include "testforge/test_ca.h"
#include "transport_rig.h"

using namespace fmtest;
using forgemeter::AnswerClass;
using forgemeter::kNoAnswer;
using forgemeter::TransportErrc;

TEST_CASE("https to the forge verifies against the test CA (file or PEM)") {
  Rig rig({.tls = true});
  const std::string url = rig.forge().tls_url("api.forge.test", "/repos/o/r/pulls/3");
  auto res = rig.get(url, 42);
  REQUIRE(res.ok());
  CHECK(res.status == 200);
  auto pem = rig.make_transport({.ca_pem = rig.forge().ca_pem()});
  CHECK(pem->perform({.url = url}).status == 200);
  const auto got = rig.forge().truth().requests();
  REQUIRE(got.size() == 2);
  CHECK(got[0].tls);
  CHECK(rig.counted().by_host.at("api.forge.test:" + std::to_string(rig.forge().tls_port())) == 2);
}

TEST_CASE("a server whose CA is unknown: the handshake fails closed, one attempt, nothing sent") {
  Rig rig({.tls = true});
  const std::string url = rig.forge().tls_url("api.forge.test", "/repos/o/r");
  tf::TestCa stranger("some other CA");
  const std::vector<forgemeter::TransportOptions> distrusting = {
      {.ca_pem = stranger.ca_pem()},                  // another CA
      {.ca_file = "/nonexistent/forgemeter-ca.pem"},  // an unreadable bundle
  };
  for (const auto& o : distrusting) {
    auto t = rig.make_transport(o);
    auto res = t->perform({.url = url, .bearer = "inst-1"});
    CHECK(res.error.code == TransportErrc::tls_failed);
    REQUIRE(res.hops.size() == 1);
    CHECK(res.hops[0].status == kNoAnswer);
  }
  CHECK(rig.forge().truth().total() == 0);  // no request ever reached the server
  const auto c = rig.counted();
  const std::string host = "api.forge.test:" + std::to_string(rig.forge().tls_port());
  CHECK(c.by_host.at(host) == 2);
  CHECK(c.answered(host, AnswerClass::none) == 2);
}

TEST_CASE("a host name the certificate does not name fails closed") {
  Rig rig({.tls = true});
  // The certificate names *.forge.test, localhost and 127.0.0.1, not this name.
  auto t = rig.make_transport({.resolve = {"elsewhere.test:" + std::to_string(rig.forge().tls_port()) + ":127.0.0.1"}});
  auto res = t->perform({.url = "https://elsewhere.test:" + std::to_string(rig.forge().tls_port()) + "/x"});
  CHECK(res.error.code == TransportErrc::tls_failed);
  CHECK(rig.forge().truth().total() == 0);
}

TEST_CASE("skipping verification takes the option named for tests") {
  Rig rig({.tls = true});
  tf::TestCa stranger("some other CA");
  auto t = rig.make_transport({.ca_pem = stranger.ca_pem(), .insecure_skip_tls_verify_for_tests = true});
  CHECK(t->perform({.url = rig.forge().tls_url("api.forge.test", "/echo")}).status == 200);
}
