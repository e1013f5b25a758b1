// HTTP/2 over TLS where the server offers it, against a real HTTP/2 server
// (nghttpd): negotiated, every request on the wire counted once, connections
// reused, the credential rule unchanged across protocols.
#include <doctest/doctest.h>

#include <thread>

#include "h2_server.h"
#include "transport_rig.h"

using namespace fmtest;
using forgemeter::AnswerClass;
using forgemeter::Request;

namespace {

const std::string kPull = R"({"number":1,"state":"open"})";

std::map<std::string, std::string> forge_files() { return {{"repos/o/r/pulls/1", kPull}}; }

// A transport of `rig` that also reaches `h2` as api.forge.test and
// uploads.forge.test, trusting both the forge's CA and `h2`'s.
std::unique_ptr<forgemeter::Transport> both(Rig& rig, const H2Server& h2, const tf::TestCa& ca) {
  forgemeter::TransportOptions o;
  o.resolve = rig.forge().resolve();
  o.resolve.push_back(h2.resolve("api.forge.test"));
  o.resolve.push_back(h2.resolve("uploads.forge.test"));
  o.ca_pem = rig.forge().ca_pem() + ca.ca_pem();  // a PEM bundle of two CAs
  return rig.make_transport(o);
}

std::string h2_url(const H2Server& h2, const std::string& host, const std::string& path) {
  return "https://" + host + ":" + std::to_string(h2.port()) + path;
}

}  // namespace

TEST_CASE("HTTP/2: negotiated over TLS, each request counted once with its answer, one connection reused") {
  Rig rig({.tls = true});
  tf::TestCa ca("forgemeter HTTP/2 test CA");
  H2Server h2(ca, forge_files());
  auto t = both(rig, h2, ca);
  const std::string host = "api.forge.test:" + std::to_string(h2.port());
  constexpr int kGets = 30;
  for (int i = 0; i < kGets; ++i) {
    auto res =
        t->perform({.url = h2_url(h2, "api.forge.test", "/repos/o/r/pulls/1"), .installation = 7, .bearer = "inst-7"});
    REQUIRE(res.ok());
    CHECK(res.status == 200);
    CHECK(res.body == kPull);
    REQUIRE(res.hops.size() == 1);
    CHECK(res.hops[0].host == host);
    CHECK(res.header("Content-Length") == std::to_string(kPull.size()));  // sent lower case in HTTP/2
  }
  auto missing = t->perform({.url = h2_url(h2, "api.forge.test", "/repos/o/r/pulls/404")});
  CHECK(missing.status == 404);

  REQUIRE(h2.await(kGets + 1));
  const auto got = h2.received();
  CHECK(got.size() == kGets + 1);  // nothing extra on the wire
  for (int i = 0; i < kGets; ++i) {
    CHECK(got[i].header(":authority") == host);
    CHECK(got[i].header("authorization") == "Bearer inst-7");
    CHECK(got[i].connection == got[0].connection);  // one connection for all of them
  }
  CHECK(h2.h2_connections() == 1);

  const auto c = rig.counted();
  CHECK(c.by_host.at(host) == kGets + 1);
  CHECK(c.by_key.at({host, forgemeter::Api::rest, 7}) == kGets);
  CHECK(c.answered(host, AnswerClass::ok2xx) == kGets);
  CHECK(c.answered(host, AnswerClass::client4xx) == 1);
}

TEST_CASE("HTTP/2 from four threads: the meter's count equals the server's") {
  Rig rig({.tls = true});
  tf::TestCa ca("forgemeter HTTP/2 test CA");
  H2Server h2(ca, forge_files());
  auto t = both(rig, h2, ca);
  constexpr int kThreads = 4, kEach = 50;
  std::atomic<int> ok{0};
  {
    std::vector<std::jthread> threads;
    for (int i = 0; i < kThreads; ++i)
      threads.emplace_back([&] {
        for (int j = 0; j < kEach; ++j)
          if (t->perform({.url = h2_url(h2, "api.forge.test", "/repos/o/r/pulls/1")}).status == 200) ++ok;
      });
  }
  CHECK(ok == kThreads * kEach);
  REQUIRE(h2.await(kThreads * kEach));
  CHECK(h2.received().size() == kThreads * kEach);
  CHECK(h2.h2_connections() >= 1);
  CHECK(h2.h2_connections() <= kThreads);  // connections are kept, not one per request
  CHECK(rig.counted().by_host.at("api.forge.test:" + std::to_string(h2.port())) == kThreads * kEach);
}

TEST_CASE("a redirect from HTTP/1.1 to an HTTP/2 host: two hosts, one request each, the credential stays home") {
  Rig rig({.tls = true});
  tf::TestCa ca("forgemeter HTTP/2 test CA");
  H2Server h2(ca, forge_files());
  auto t = both(rig, h2, ca);
  const std::string there = h2_url(h2, "uploads.forge.test", "/repos/o/r/pulls/1");
  auto res = t->perform({.url = rig.forge().tls_url("api.forge.test", "/redirect?to=" + there),
                         .headers = {{"Cookie", "session=secret"}},
                         .installation = 7,
                         .bearer = "inst-7"});
  REQUIRE(res.ok());
  CHECK(res.status == 200);
  CHECK(res.body == kPull);
  REQUIRE(res.hops.size() == 2);
  const std::string home = "api.forge.test:" + std::to_string(rig.forge().tls_port());
  const std::string away = "uploads.forge.test:" + std::to_string(h2.port());
  CHECK(res.hops[0].host == home);
  CHECK(res.hops[0].status == 302);
  CHECK(res.hops[1].host == away);
  CHECK(res.hops[1].status == 200);

  REQUIRE(h2.await(1));
  const auto got = h2.received();
  REQUIRE(got.size() == 1);
  CHECK(got[0].header(":authority") == away);
  CHECK(got[0].headers.count("authorization") == 0);
  CHECK(got[0].headers.count("cookie") == 0);
  CHECK(rig.forge().truth().total() == 1);
  const auto c = rig.counted();
  CHECK(c.by_host.at(home) == 1);
  CHECK(c.by_host.at(away) == 1);
  CHECK(c.by_key.at({away, forgemeter::Api::rest, 0}) == 1);  // the installation is not charged away from home
}
