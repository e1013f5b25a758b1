// The Transport's conditional cache against a loopback HTTP server: what is
// kept, what the key separates, what is never kept or sent back.
#include <doctest/doctest.h>

#include <thread>

#include "cache_rig.h"
#include "support/eventually.h"
#include "transport/cache/cache_entry.h"
#include "transport/cache/keyed_hash.h"

using namespace fmtest;
using forgemeter::AnswerClass;
using forgemeter::Request;
using forgemeter::Response;
using forgemeter::TransportErrc;

namespace {

CachedResource tagged(std::string body) { return {.body = std::move(body), .etag = "auto"}; }

}  // namespace

TEST_CASE("200 resources read 30 times: 200 full answers, the rest revalidated, each read current") {
  CacheRig rig;
  auto& srv = rig.server();
  for (int i = 0; i < 200; ++i) srv.set("/repos/o/r/pulls/" + std::to_string(i), tagged("pull " + std::to_string(i)));
  std::size_t wrong = 0, revalidated = 0;
  for (int round = 0; round < 30; ++round) {
    if (round == 15) srv.set("/repos/o/r/pulls/7", tagged("pull 7, edited"));  // a change mid-sweep
    for (int i = 0; i < 200; ++i) {
      auto res = rig.get("/repos/o/r/pulls/" + std::to_string(i));
      const std::string want = "pull " + std::to_string(i) + (i == 7 && round >= 15 ? ", edited" : "");
      if (!res.ok() || res.status != 200 || res.body != want) ++wrong;
      revalidated += res.revalidated;
    }
  }
  CHECK(wrong == 0);
  CHECK(srv.requests() == 6000);            // each read is a request on the wire …
  CHECK(srv.not_modified() == 6000 - 201);  // … all but 200 (+1 after the change) answered 304
  CHECK(revalidated == 6000 - 201);
  const auto c = rig.counted();
  CHECK(c.malformed.empty());
  CHECK(c.total == 6000);
  CHECK(c.answered(rig.host(), AnswerClass::ok2xx) == 201);
  CHECK(c.answered(rig.host(), AnswerClass::not_modified) == 6000 - 201);
  CHECK(c.answered(rig.host(), AnswerClass::revalidated) == 6000 - 201);
  CHECK(c.answered(rig.host(), AnswerClass::coalesced) == 0);
  CHECK(rig.transport().cache_figures().entries == 200);
}

TEST_CASE("a revalidated answer: the kept status and body, the 304's rate-limit headers, one 304 hop") {
  CacheRig rig;
  rig.server().set("/r", {.body = "{}", .etag = "\"v1\"", .fields = {{"X-Kind", "kept"}}});
  auto first = rig.get("/r");
  REQUIRE(first.status == 200);
  CHECK_FALSE(first.revalidated);
  auto again = rig.get("/r");
  REQUIRE(again.ok());
  CHECK(again.revalidated);
  CHECK(again.status == 200);
  CHECK(again.body == "{}");
  CHECK(again.header("X-Kind") == "kept");
  CHECK(again.header("Content-Type") == "application/json");
  CHECK(again.header("X-RateLimit-Remaining") == "4998");  // the 304's, not the kept 4999
  REQUIRE(again.hops.size() == 1);
  CHECK(again.hops[0].status == 304);
  CHECK(rig.last_if_none_match() == "\"v1\"");
}

TEST_CASE("Last-Modified alone is a validator: If-Modified-Since") {
  CacheRig rig;
  rig.server().set("/r", {.body = "x", .last_modified = "Wed, 21 Oct 2015 07:28:00 GMT"});
  REQUIRE(rig.get("/r").status == 200);
  auto again = rig.get("/r");
  CHECK(again.revalidated);
  CHECK(rig.server().seen().back().if_modified_since == "Wed, 21 Oct 2015 07:28:00 GMT");
}

TEST_CASE("two credentials never share an entry") {
  CacheRig rig;
  rig.server().set("/r", {.body = "secret", .etag = "auto", .per_credential = true});
  auto a = rig.get("/r", "tok-a");
  auto b = rig.get("/r", "tok-b");
  CHECK(a.body == "secret for Bearer tok-a");
  CHECK(b.body == "secret for Bearer tok-b");
  CHECK_FALSE(b.revalidated);
  CHECK(rig.last_if_none_match().empty());  // b's read was not made conditional on a's ETag
  CHECK(rig.get("/r", "tok-a").body == "secret for Bearer tok-a");
  CHECK(rig.get("/r", "tok-b").body == "secret for Bearer tok-b");
  CHECK(rig.transport().cache_figures().entries == 2);

  SUBCASE("a credential header is part of the key too") {
    Request r = rig.get_request("/g", "");
    rig.server().set("/g", tagged("gitlab"));
    r.headers = {{"PRIVATE-TOKEN", "one"}};
    REQUIRE(rig.transport().perform(r).status == 200);
    r.headers = {{"PRIVATE-TOKEN", "two"}};
    auto other = rig.transport().perform(r);
    CHECK_FALSE(other.revalidated);
    CHECK(rig.last_if_none_match().empty());
  }
}

TEST_CASE("Vary: a request with other values of the named headers is asked afresh") {
  CacheRig rig;
  rig.server().set("/r", {.body = "v", .etag = "auto", .fields = {{"Vary", "Accept"}}, .echo = {"Accept"}});
  Request json = rig.get_request("/r"), raw = json;
  json.headers = {{"Accept", "application/json"}};
  raw.headers = {{"Accept", "application/vnd.github.raw"}};
  CHECK(rig.transport().perform(json).body == "v Accept=application/json");
  auto r = rig.transport().perform(raw);
  CHECK(r.body == "v Accept=application/vnd.github.raw");
  CHECK_FALSE(r.revalidated);
  CHECK(rig.last_if_none_match().empty());
  auto again = rig.transport().perform(raw);
  CHECK(again.revalidated);
  CHECK(again.body == "v Accept=application/vnd.github.raw");
}

TEST_CASE("never kept: 5xx, 403, 404, no-store, Set-Cookie, Vary *, oversize") {
  CacheRig rig({.max_bytes = 64u << 20, .max_entries = 100, .max_entry_bytes = 1u << 20});
  auto& srv = rig.server();
  const std::string big(10u << 20, 'b');  // 10 MB against a 1 MB bound
  srv.set("/5xx", {.body = "e", .etag = "\"1\"", .status = 503});
  srv.set("/403", {.body = "e", .etag = "\"1\"", .status = 403});
  srv.set("/404", {.body = "e", .etag = "\"1\"", .status = 404});
  srv.set("/no-store", {.body = "e", .etag = "\"1\"", .fields = {{"Cache-Control", "private, No-Store"}}});
  srv.set("/cookie", {.body = "e", .etag = "\"1\"", .fields = {{"Set-Cookie", "s=1"}}});
  srv.set("/vary-star", {.body = "e", .etag = "\"1\"", .fields = {{"Vary", "*"}}});
  srv.set("/big", {.body = big, .etag = "\"1\""});
  for (const char* path : {"/5xx", "/403", "/404", "/no-store", "/cookie", "/vary-star", "/big"}) {
    CAPTURE(path);
    auto first = rig.get(path);
    auto second = rig.get(path);
    CHECK(rig.last_if_none_match().empty());
    CHECK_FALSE(second.revalidated);
    CHECK(second.status == first.status);
    CHECK(second.body == first.body);
  }
  CHECK(rig.get("/big").body.size() == big.size());
  CHECK(rig.transport().cache_figures().entries == 0);
  CHECK(rig.transport().cache_figures().bytes == 0);
}

TEST_CASE("`private` answers are kept: this cache is one client's") {
  CacheRig rig;
  rig.server().set("/p", {.body = "mine", .etag = "\"1\"", .fields = {{"Cache-Control", "private, max-age=60"}}});
  rig.get("/p");
  CHECK(rig.get("/p").revalidated);
}

TEST_CASE("a kept entry goes when the resource does") {
  CacheRig rig;
  rig.server().set("/gone", tagged("here"));
  rig.get("/gone");
  rig.server().set("/gone", {.body = "gone", .etag = "\"1\"", .status = 404});
  CHECK(rig.get("/gone").status == 404);
  CHECK(rig.transport().cache_figures().entries == 0);
}

TEST_CASE("POST, GraphQL and a caller's own conditional or Range bypass the cache") {
  CacheRig rig;
  rig.server().set("/graphql", tagged("g"));
  rig.server().set("/r", tagged("r"));
  Request post = rig.get_request("/r");
  post.method = "POST";
  post.body = "{}";
  rig.transport().perform(post);
  rig.transport().perform(post);
  rig.get("/graphql");
  CHECK_FALSE(rig.get("/graphql").revalidated);
  CHECK(rig.transport().cache_figures().entries == 0);

  auto kept = rig.get("/r");
  Request own = rig.get_request("/r");
  own.headers = {{"If-None-Match", std::string(*kept.header("ETag"))}};
  auto mine = rig.transport().perform(own);  // the caller's own If-None-Match: its 304, as today
  CHECK(mine.status == 304);
  CHECK(mine.body.empty());
  CHECK_FALSE(mine.revalidated);
}

TEST_CASE("a 304 to a request the cache did not make conditional reaches the caller as the 304 it is") {
  CacheRig rig;
  rig.server().set("/broken", {.status = 304});
  auto res = rig.get("/broken");
  REQUIRE(res.ok());
  CHECK(res.status == 304);
  CHECK_FALSE(res.revalidated);
  CHECK(res.body.empty());
  CHECK(rig.transport().cache_figures().entries == 0);
}

TEST_CASE("an entry evicted while its revalidation is in flight still answers that 304") {
  CacheRig rig({.max_bytes = 1u << 20, .max_entries = 1, .max_entry_bytes = 1u << 20});
  rig.server().set("/a", tagged("a"));
  rig.server().set("/b", tagged("b"));
  REQUIRE(rig.get("/a").status == 200);
  rig.server().hold("/a");
  Response a;
  std::thread t([&] { a = rig.get("/a"); });  // conditional, kept back at the server
  REQUIRE(eventually([&] { return rig.server().requests() == 2; }));
  REQUIRE(rig.get("/b").status == 200);  // evicts /a (one entry at most)
  rig.server().release();
  t.join();
  CHECK(a.ok());
  CHECK(a.revalidated);
  CHECK(a.status == 200);
  CHECK(a.body == "a");
  CHECK(rig.transport().cache_figures().entries == 1);
}

TEST_CASE("a hostile validator is never sent back") {
  CacheRig rig;
  const std::string long_tag = "\"" + std::string(10'000, 'x') + "\"";
  rig.server().set("/ctl", {.body = "c", .etag = "\"a\x01X-Evil: 1\""});
  rig.server().set("/del", {.body = "c", .last_modified = "Wed, 21 Oct 2015\x7f 07:28:00 GMT"});
  rig.server().set("/long", {.body = "c", .etag = long_tag});
  for (const char* path : {"/ctl", "/del", "/long"}) {
    CAPTURE(path);
    auto first = rig.get(path);
    REQUIRE(first.status == 200);
    CHECK((first.header("ETag") || first.header("Last-Modified")));  // the hostile value did arrive
    rig.get(path);
    CHECK(rig.last_if_none_match().empty());
    CHECK(rig.server().seen().back().if_modified_since.empty());
  }
  CHECK(rig.transport().cache_figures().entries == 0);
  // What no server here can send: a split line is dropped too.
  for (std::string_view v :
       {std::string_view("\"a\r\nX-Evil: 1\""), std::string_view("\"a\nb\""), std::string_view("\"a\0b\"", 5)})
    CHECK(forgemeter::transport_detail::usable_validator(v).empty());
  CHECK(forgemeter::transport_detail::usable_validator("W/\"abc\"") == "W/\"abc\"");
}

TEST_CASE("an answer reached through a redirect to another origin is not kept") {
  CacheServer other;  // outlives the rig: its Transport's connections to it close first
  CacheRig rig;
  other.set("/x", tagged("elsewhere"));
  rig.server().set("/r", {.status = 302, .fields = {{"Location", other.url("/x")}}});
  REQUIRE(rig.get("/r").body == "elsewhere");
  rig.get("/r");
  CHECK(other.seen().back().if_none_match.empty());
  CHECK(rig.transport().cache_figures().entries == 0);
}

TEST_CASE("the keyed hash is SipHash-2-4-128: the reference's vectors") {
  using forgemeter::transport_detail::siphash128;
  const forgemeter::transport_detail::SipKey key{0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL};  // bytes 00..0f
  auto hex = [](const forgemeter::transport_detail::Sip128& h) {
    std::string s;
    for (unsigned char c : h) s += "0123456789abcdef"[c >> 4], s += "0123456789abcdef"[c & 15];
    return s;
  };
  CHECK(hex(siphash128(key, "")) == "a3817f04ba25a8e66df67214c7550293");
  std::string fifteen;
  for (char c = 0; c < 15; ++c) fifteen += c;
  CHECK(hex(siphash128(key, fifteen)) != hex(siphash128({1, 2}, fifteen)));  // the key matters
}
