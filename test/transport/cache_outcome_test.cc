// Response::cache: what the cache did with each request, as a proxy's
// Cache-Status (RFC 9211) reports it — no cache, bypassed, stored, not
// stored, revalidated, coalesced — against cache_server.h.
#include <doctest/doctest.h>

#include <thread>

#include "cache_rig.h"
#include "support/eventually.h"

using namespace fmtest;
using forgemeter::CacheOutcome;
using forgemeter::Request;
using forgemeter::Response;

TEST_CASE("cache outcome: no_cache without a cache, bypassed for what the cache does not take") {
  CacheRig plain({.max_bytes = 0});
  plain.server().set("/r", {.body = "b", .etag = "\"1\""});
  CHECK(plain.get("/r").cache == CacheOutcome::no_cache);

  CacheRig rig;
  rig.server().set("/r", {.body = "b", .etag = "\"1\""});
  Request post{.method = "POST", .url = rig.server().url("/r"), .body = "{}"};
  Request own_validator = rig.get_request("/r");
  own_validator.headers.emplace_back("If-None-Match", "\"1\"");
  for (const Request& r : {post, own_validator}) {
    const Response res = rig.transport().perform(r);
    REQUIRE(res.ok());
    CHECK(res.cache == CacheOutcome::bypassed);
    CHECK(to_string(res.cache) == "bypassed");
  }
  CHECK(rig.transport().cache_figures().entries == 0);
}

TEST_CASE("cache outcome: stored, then revalidated, then changed once the resource changed") {
  CacheRig rig;
  rig.server().set("/r", {.body = "v1", .etag = "\"1\""});
  const Response first = rig.get("/r");
  CHECK(first.cache == CacheOutcome::stored);
  const Response second = rig.get("/r");
  CHECK(second.cache == CacheOutcome::revalidated);
  CHECK(second.revalidated);
  CHECK(second.body == "v1");
  rig.server().set("/r", {.body = "v2", .etag = "\"2\""});
  const Response third = rig.get("/r");
  CHECK(rig.last_if_none_match() == "\"1\"");  // asked with the kept validator: a 200 came back
  CHECK(third.cache == CacheOutcome::changed);
  CHECK(to_string(third.cache) == "changed");
  CHECK(rig.get("/r").cache == CacheOutcome::revalidated);  // the new one kept
  CHECK(third.body == "v2");
}

TEST_CASE("cache outcome: not_stored for an answer the cache does not keep, and for a failure") {
  CacheRig rig({.max_bytes = 4u << 20, .max_entries = 1000, .max_entry_bytes = 64u << 10});
  rig.server().set("/no-validator", {.body = "b"});
  rig.server().set("/no-store", {.body = "b", .etag = "\"1\"", .fields = {{"Cache-Control", "no-store"}}});
  rig.server().set("/large", {.body = std::string(65u << 10, 'x'), .etag = "\"1\""});
  for (const std::string path : {"/no-validator", "/no-store", "/large", "/missing"}) {
    CAPTURE(path);
    const Response res = rig.get(path);
    REQUIRE(res.ok());
    CHECK(res.cache == CacheOutcome::not_stored);
  }
  Request unreachable{.url = "http://127.0.0.1:1/r"};
  const Response failed = rig.transport().perform(unreachable);
  CHECK_FALSE(failed.ok());
  CHECK(failed.cache == CacheOutcome::not_stored);
  CHECK(rig.transport().cache_figures().entries == 0);
}

TEST_CASE("cache outcome: a follower is coalesced, its leader stored") {
  CacheRig rig;
  rig.server().set("/hot", {.body = "hot", .etag = "\"h\""});
  rig.server().hold();
  Response lead, follow;
  std::thread lt([&] { lead = rig.get("/hot"); });
  const bool led = eventually([&] { return rig.server().requests() == 1; });
  std::thread ft([&] { follow = rig.get("/hot"); });
  const bool follows = led && eventually([&] { return rig.transport().cache_figures().following == 1; });
  rig.server().release();
  lt.join();
  ft.join();
  REQUIRE(follows);
  CHECK(lead.cache == CacheOutcome::stored);
  CHECK(follow.cache == CacheOutcome::coalesced);
  CHECK(follow.coalesced);
  CHECK(follow.body == "hot");
}

TEST_CASE("a request that does not follow redirects never coalesces with one that does") {
  CacheRig rig;
  rig.server().set("/moved", {.body = "moved", .status = 302, .fields = {{"Location", "/final"}}});
  rig.server().set("/final", {.body = "final", .etag = "\"f\""});
  rig.server().hold();
  Response follows, stays;
  std::thread a([&] { follows = rig.get("/moved"); });
  const bool first_in = eventually([&] { return rig.server().requests() == 1; });
  std::thread b([&] {
    Request r = rig.get_request("/moved");
    r.follow_redirects = false;
    stays = rig.transport().perform(r);
  });
  const bool both_sent = first_in && eventually([&] { return rig.server().requests() == 2; });
  rig.server().release();
  a.join();
  b.join();
  CHECK(both_sent);
  CHECK(follows.status == 200);
  CHECK(follows.body == "final");
  CHECK(stays.status == 302);
  CHECK(stays.body == "moved");
  CHECK_FALSE(stays.coalesced);
  CHECK(stays.cache == CacheOutcome::not_stored);
}

TEST_CASE("cache outcome: a sink's pieces carry it, so a proxy sends Cache-Status with the head") {
  CacheRig rig({.max_bytes = 1 << 20, .max_entry_bytes = 1024});
  rig.server().set("/r", {.body = "small", .etag = "\"1\""});
  rig.server().set("/big", {.body = std::string(4000, 'x'), .etag = "\"2\""});
  const auto pieces_say = [&](Request r) {
    std::vector<CacheOutcome> seen;
    r.on_body = [&](const forgemeter::BodyChunk& c) {
      seen.push_back(c.cache);
      return true;
    };
    const Response res = rig.transport().perform(r);
    REQUIRE_FALSE(seen.empty());
    for (CacheOutcome c : seen) CHECK(c == res.cache);
    return res.cache;
  };
  CHECK(pieces_say(rig.get_request("/r")) == CacheOutcome::stored);
  CHECK(pieces_say(rig.get_request("/r")) == CacheOutcome::revalidated);
  CHECK(pieces_say(rig.get_request("/big")) == CacheOutcome::not_stored);  // past the entry bound: streamed
  CHECK(pieces_say(Request{.method = "POST", .url = rig.server().url("/r"), .body = "{}"}) == CacheOutcome::bypassed);
}
