// What a 304 does to the kept entry it revalidates (RFC 9111 §4.3.4), against
// the loopback cache server: its fields update the entry, or drop it when
// they say it is not kept (no-store, Vary: *); a 304 that names another
// representation (a new ETag) or comes from another origin after a redirect
// never serves the kept answer; a 304's Set-Cookie is never merged into it.
#include <doctest/doctest.h>

#include "cache_rig.h"

using namespace fmtest;
using forgemeter::Response;

namespace {

CachedResource kept(std::string body, std::vector<std::pair<std::string, std::string>> on_304 = {}) {
  return {.body = std::move(body), .etag = "\"v1\"", .on_304 = std::move(on_304)};
}

}  // namespace

TEST_CASE("a 304 saying no-store or Vary: * is served once, then its entry is gone") {
  for (const auto& field : {std::pair<std::string, std::string>{"Cache-Control", "no-store"},
                            std::pair<std::string, std::string>{"Vary", "*"}}) {
    CAPTURE(field.first);
    CacheRig rig;
    rig.server().set("/r", kept("x"));
    REQUIRE(rig.get("/r").status == 200);
    rig.server().set("/r", kept("x", {field}));
    const Response again = rig.get("/r");
    CHECK(again.revalidated);  // this read's answer is still the kept one, now current
    CHECK(again.body == "x");
    CHECK(rig.transport().cache_figures().entries == 0);
    rig.get("/r");
    CHECK(rig.last_if_none_match().empty());  // asked afresh: no old validator
  }
}

TEST_CASE("a 304 with a new ETag does not serve the kept answer: asked again without a validator") {
  CacheRig rig;
  rig.server().set("/r", kept("x"));
  REQUIRE(rig.get("/r").status == 200);
  rig.server().set("/r", kept("x, edited", {{"ETag", "\"v2\""}}));  // a 304 naming another representation
  const Response again = rig.get("/r");
  CHECK_FALSE(again.revalidated);
  CHECK(again.status == 200);
  CHECK(again.body == "x, edited");
  const auto seen = rig.server().seen();
  REQUIRE(seen.size() == 3);
  CHECK(seen[1].if_none_match == "\"v1\"");
  CHECK(seen[2].if_none_match.empty());
}

TEST_CASE("a 304's fields update the kept entry; its Set-Cookie is never merged into it") {
  CacheRig rig;
  rig.server().set("/r", {.body = "x", .etag = "\"v1\"", .fields = {{"X-Kind", "old"}}});
  REQUIRE(rig.get("/r").status == 200);
  rig.server().set(
      "/r", {.body = "x", .etag = "\"v1\"", .fields = {{"X-Kind", "new"}}, .on_304 = {{"Set-Cookie", "session=abc"}}});
  const Response again = rig.get("/r");
  REQUIRE(again.revalidated);
  CHECK(again.header("X-Kind") == "new");
  CHECK_FALSE(again.header("Set-Cookie").has_value());
  rig.server().set("/r", {.body = "x", .etag = "\"v1\""});  // its 304s now say nothing of X-Kind
  const Response third = rig.get("/r");
  REQUIRE(third.revalidated);
  CHECK(third.header("X-Kind") == "new");  // the entry was updated by the last 304
  CHECK_FALSE(third.header("Set-Cookie").has_value());
  CHECK(rig.transport().cache_figures().entries == 1);
}

TEST_CASE("a 304 from another origin after a redirect never serves the kept entry") {
  CacheServer other;  // outlives the rig: its Transport's connections to it close first
  CacheRig rig;
  rig.server().set("/r", kept("kept here"));
  REQUIRE(rig.get("/r").body == "kept here");
  other.set("/x", {.status = 304});  // a 304 to anything
  rig.server().set("/r", {.status = 302, .fields = {{"Location", other.url("/x")}}});
  const Response res = rig.get("/r");
  CHECK_FALSE(res.revalidated);
  CHECK(res.body.empty());
  CHECK(res.status == 304);  // the other origin's answer to the plain request, as it is
  CHECK(rig.transport().cache_figures().entries == 0);
  CHECK(other.requests() == 2);  // the conditional's 304 was not used: asked once more without a validator
}
