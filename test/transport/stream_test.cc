// Request::on_body against a loopback HTTP server (cache_server.h): the final
// answer's body goes to the caller's sink as it arrives, Response::body stays
// empty; a redirect's or a retried attempt's body never reaches it; a refusing
// sink ends the transfer, still counted; the cache keeps a streamed 200 only
// when it fits its per-entry bound, and a revalidated one feeds the sink.
#include <doctest/doctest.h>

#include <stdexcept>

#include "stream_sink.h"

using namespace fmtest;
using forgemeter::AnswerClass;
using forgemeter::BodyChunk;
using forgemeter::TransportErrc;

namespace {

forgemeter::CacheOptions no_cache() { return {.max_bytes = 0}; }

}  // namespace

TEST_CASE("a streamed answer: every byte to the sink, in order, with its head; Response::body empty") {
  CacheRig rig(no_cache());
  const std::string body = pattern(3u << 20);
  rig.server().set("/big", {.body = body, .etag = "\"v1\""});
  Taken t;
  const auto res = rig.transport().perform(streamed(rig, "/big", t));
  REQUIRE(res.ok());
  CHECK(res.status == 200);
  CHECK(res.body.empty());
  CHECK(t.bytes == body);
  CHECK(t.calls > 1);  // in pieces, as they came
  CHECK(t.status == 200);
  CHECK(t.etag == "\"v1\"");
}

TEST_CASE("a sink that says stop ends the transfer: sink_refused, the request and its answer counted") {
  CacheRig rig(no_cache());
  rig.server().set("/big", {.body = pattern(8u << 20)});
  int calls = 0;
  auto req = rig.get_request("/big");
  req.on_body = [&calls](const BodyChunk&) { return ++calls < 2; };
  const auto res = rig.transport().perform(req);
  CHECK(res.error.code == TransportErrc::sink_refused);
  CHECK(res.status == 200);
  CHECK(calls == 2);  // not called again once it said stop
  CHECK(res.body.empty());
  const auto c = rig.counted();
  CHECK(c.total == 1);
  CHECK(c.answered(rig.host(), AnswerClass::ok2xx) == 1);
}

TEST_CASE("a sink that throws is a refusal too, and nothing escapes perform()") {
  CacheRig rig(no_cache());
  rig.server().set("/x", {.body = "some bytes"});
  auto req = rig.get_request("/x");
  req.on_body = [](const BodyChunk&) -> bool { throw std::runtime_error("disk on fire"); };
  const auto res = rig.transport().perform(req);
  CHECK(res.error.code == TransportErrc::sink_refused);
  CHECK(res.error.message.find("disk on fire") != std::string::npos);
  CHECK(to_string(res.error.code) == "sink_refused");
}

TEST_CASE("a redirect's body never reaches the sink: only the final answer's") {
  CacheRig rig(no_cache());
  rig.server().set("/moved", {.body = "REDIRECT BODY", .status = 302, .fields = {{"Location", "/final"}}});
  rig.server().set("/final", {.body = "the final answer"});
  Taken t;
  const auto res = rig.transport().perform(streamed(rig, "/moved", t));
  REQUIRE(res.ok());
  CHECK(res.hops.size() == 2);
  CHECK(t.bytes == "the final answer");
  CHECK(t.status == 200);
}

TEST_CASE("a retried attempt's body never reaches the sink: the last 503's, once") {
  forgemeter::TransportOptions opt;
  opt.rate_limits.retry = {.enabled = true,
                           .max_retries = 2,
                           .base_backoff = std::chrono::milliseconds(1),
                           .max_backoff = std::chrono::milliseconds(2)};
  CacheRig rig(no_cache(), opt);
  rig.server().set("/busy", {.body = "busy, try later", .status = 503});
  Taken t;
  const auto res = rig.transport().perform(streamed(rig, "/busy", t));
  CHECK(res.status == 503);
  CHECK(res.hops.size() == 3);  // the first try and two retries
  CHECK(t.bytes == "busy, try later");
  CHECK(t.calls == 1);
  CHECK(t.status == 503);
  CHECK(t.remaining == "4997");  // the third answer's head came with its held body
}

TEST_CASE("a retryable answer too long to hold is streamed, and then not retried") {
  forgemeter::TransportOptions opt;
  opt.rate_limits.retry = {.enabled = true, .max_retries = 2, .base_backoff = std::chrono::milliseconds(1)};
  CacheRig rig(no_cache(), opt);
  const std::string body = pattern(300u << 10);
  rig.server().set("/busy", {.body = body, .status = 503});
  Taken t;
  const auto res = rig.transport().perform(streamed(rig, "/busy", t));
  CHECK(res.status == 503);
  CHECK(res.hops.size() == 1);
  CHECK(t.bytes == body);
}

TEST_CASE("cache: a streamed 200 over the entry bound is not kept, the sink gets every byte") {
  CacheRig rig({.max_bytes = 8u << 20, .max_entries = 100, .max_entry_bytes = 1u << 20});
  const std::string body = pattern((1u << 20) + 1);
  rig.server().set("/big", {.body = body, .etag = "\"big\""});
  for (int i = 0; i < 2; ++i) {
    Taken t;
    const auto res = rig.transport().perform(streamed(rig, "/big", t));
    REQUIRE(res.ok());
    CHECK_FALSE(res.revalidated);  // never kept: asked afresh
    CHECK(t.bytes == body);
    CHECK(res.body.empty());
  }
  CHECK(rig.transport().cache_figures().entries == 0);
  CHECK(rig.last_if_none_match().empty());
}

TEST_CASE("cache: a streamed 200 that fits is kept, and its revalidation feeds the sink the kept body") {
  CacheRig rig;
  const std::string body = pattern(100u << 10);
  rig.server().set("/small", {.body = body, .etag = "\"s\""});
  Taken first, second;
  REQUIRE(rig.transport().perform(streamed(rig, "/small", first)).ok());
  CHECK(first.bytes == body);
  CHECK(rig.transport().cache_figures().entries == 1);
  const auto res = rig.transport().perform(streamed(rig, "/small", second));
  REQUIRE(res.ok());
  CHECK(res.revalidated);
  CHECK(res.status == 200);
  CHECK(res.body.empty());
  CHECK(second.bytes == body);
  CHECK(second.status == 200);
  CHECK(rig.server().not_modified() == 1);
  // A buffered request of the same resource still gets the kept body.
  CHECK(rig.get("/small").body == body);
}
