// Request::follow_redirects = false: a 3xx is the answer, one hop, its
// Location never asked (checked on the forge's ground truth), the meter
// counting the one request; its body reaches Response::body or on_body.
#include <doctest/doctest.h>

#include "transport_rig.h"

using namespace fmtest;
using forgemeter::Request;

namespace {

// A GET signed as installation 101 that a `status` redirect answers, pointing at another host.
Request unfollowed(Rig& rig, int status, std::string& to) {
  to = rig.url("uploads.forge.test", "/echo");
  Request r = Rig::get_request(rig.url("api.forge.test", tf::redirect_path(to, status)), 101);
  r.follow_redirects = false;
  return r;
}

}  // namespace

TEST_CASE("follow_redirects = false: a 301/302/307 is the answer, its Location never asked") {
  for (int status : {301, 302, 307}) {
    CAPTURE(status);
    Rig rig;
    std::string to;
    const auto res = rig.transport().perform(unfollowed(rig, status, to));
    REQUIRE(res.ok());
    CHECK(res.status == status);
    CHECK(res.header("Location") == to);
    CHECK(res.body == "redirecting\n");
    REQUIRE(res.hops.size() == 1);
    CHECK(res.hops[0].host == rig.host("api.forge.test"));
    const auto got = rig.forge().truth().requests();
    REQUIRE(got.size() == 1);  // uploads.forge.test never contacted
    CHECK(got[0].host == rig.host("api.forge.test"));
    const auto c = rig.counted();
    CHECK(c.total == 1);
    CHECK(c.by_host == forge_by_host(rig.forge()));
  }
}

TEST_CASE("follow_redirects = false: a POST's 307 is handed back, its body sent once") {
  Rig rig;
  Request r{.method = "POST", .url = rig.url("api.forge.test", tf::redirect_path("/echo", 307)), .body = "payload"};
  r.follow_redirects = false;
  const auto res = rig.transport().perform(r);
  REQUIRE(res.ok());
  CHECK(res.status == 307);
  CHECK(res.hops.size() == 1);
  CHECK(rig.forge().truth().total() == 1);
}

TEST_CASE("follow_redirects = false with on_body: the 3xx's body goes to the sink as any final answer's") {
  Rig rig;
  std::string to, got;
  int status = 0;
  Request r = unfollowed(rig, 302, to);
  r.on_body = [&](const forgemeter::BodyChunk& c) {
    got.append(c.bytes);
    status = c.status;
    return c.headers->find("Location") == to;
  };
  const auto res = rig.transport().perform(r);
  REQUIRE(res.ok());
  CHECK(res.status == 302);
  CHECK(res.body.empty());
  CHECK(got == "redirecting\n");
  CHECK(status == 302);
  CHECK(rig.forge().truth().total() == 1);
}

TEST_CASE("follow_redirects = true (the default) still follows: two hops") {
  Rig rig;
  std::string to;
  Request r = unfollowed(rig, 302, to);
  r.follow_redirects = true;
  const auto res = rig.transport().perform(r);
  REQUIRE(res.ok());
  CHECK(res.status == 200);
  CHECK(res.hops.size() == 2);
  CHECK(rig.forge().truth().total() == 2);
}
