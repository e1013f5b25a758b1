// The streaming-and-cache rule (docs/cache.md): a GET the cache takes with
// Request::on_body is held back from the sink while it fits max_entry_bytes,
// so it is kept, revalidated and coalesced as a buffered one and then handed
// to the sink whole; past the bound, or when the cache does not take it, it
// streams as it comes and is not kept. Against cache_server.h.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>
#include <utility>

#include "stream_sink.h"
#include "support/eventually.h"

using namespace fmtest;
using forgemeter::AnswerClass;
using forgemeter::BodyChunk;
using forgemeter::Request;
using forgemeter::Response;

namespace {

// A streamed GET of `path` that leads, and an identical one sent once it is
// on the wire, answered together once both are in: {leader's, follower's}.
std::pair<Response, Response> lead_and_follow(CacheRig& rig, const std::string& path, Taken& lead_sunk,
                                              Taken& follow_sunk) {
  rig.server().hold();
  Response lead, follow;
  std::thread lt([&] { lead = rig.transport().perform(streamed(rig, path, lead_sunk)); });
  const bool led = eventually([&] { return rig.server().requests() == 1; });
  std::thread ft([&] { follow = rig.transport().perform(streamed(rig, path, follow_sunk)); });
  const bool follows = led && eventually([&] { return rig.transport().cache_figures().following == 1; });
  rig.server().release();
  lt.join();
  ft.join();
  CHECK(led);
  CHECK(follows);
  return {lead, follow};
}

forgemeter::CacheOptions bound_256k() {
  return {.max_bytes = 8u << 20, .max_entries = 100, .max_entry_bytes = 256u << 10};
}

}  // namespace

TEST_CASE("stream and cache: a streamed GET that fits is kept, handed to the sink whole, and revalidated") {
  CacheRig rig(bound_256k());
  const std::string body = pattern(200u << 10);  // many of libcurl's 16 KiB pieces
  rig.server().set("/r", {.body = body, .etag = "\"r1\""});
  Taken first, second;
  const Response a = rig.transport().perform(streamed(rig, "/r", first));
  REQUIRE(a.ok());
  CHECK(a.body.empty());
  CHECK(first.bytes == body);
  CHECK(first.calls == 1);  // held back, then handed whole
  CHECK(first.etag == "\"r1\"");
  CHECK(a.cache == forgemeter::CacheOutcome::stored);
  CHECK(rig.transport().cache_figures().entries == 1);

  const Response b = rig.transport().perform(streamed(rig, "/r", second));
  REQUIRE(b.ok());
  CHECK(b.revalidated);
  CHECK(b.cache == forgemeter::CacheOutcome::revalidated);
  CHECK(b.status == 200);
  CHECK(b.body.empty());
  CHECK(second.bytes == body);
  CHECK(second.status == 200);
  CHECK(second.etag == "\"r1\"");
  CHECK(rig.server().not_modified() == 1);
  CHECK(rig.counted().answered(rig.host(), AnswerClass::revalidated) == 1);
}

TEST_CASE("stream and cache: identical streamed GETs in flight are coalesced; each sink gets the body") {
  CacheRig rig(bound_256k());
  const std::string body = pattern(100u << 10);
  rig.server().set("/hot", {.body = body, .etag = "\"h\""});
  Taken lead_sunk, follow_sunk;
  const auto [lead, follow] = lead_and_follow(rig, "/hot", lead_sunk, follow_sunk);
  REQUIRE(lead.ok());
  REQUIRE(follow.ok());
  CHECK_FALSE(lead.coalesced);
  CHECK(follow.coalesced);
  CHECK(follow.cache == forgemeter::CacheOutcome::coalesced);
  CHECK(follow.hops.empty());
  CHECK(lead.body.empty());
  CHECK(follow.body.empty());
  CHECK(lead_sunk.bytes == body);
  CHECK(follow_sunk.bytes == body);
  CHECK(follow_sunk.status == 200);
  CHECK(rig.server().requests() == 1);
  CHECK(rig.counted().answered(rig.host(), AnswerClass::coalesced) == 1);
}

TEST_CASE("stream and cache: an answer past the bound streams as it comes, is not kept, and is not shared") {
  CacheRig rig(bound_256k());
  const std::string body = pattern((256u << 10) + 1);
  rig.server().set("/big", {.body = body, .etag = "\"b\""});
  Taken lead_sunk, follow_sunk;
  const auto [lead, follow] = lead_and_follow(rig, "/big", lead_sunk, follow_sunk);
  REQUIRE(lead.ok());
  REQUIRE(follow.ok());
  CHECK(lead_sunk.bytes == body);
  CHECK(lead_sunk.calls > 1);  // the held part, then each piece as it came
  CHECK(follow_sunk.bytes == body);
  CHECK_FALSE(follow.coalesced);  // its leader's body went to one sink: it sent its own
  CHECK(lead.cache == forgemeter::CacheOutcome::not_stored);
  CHECK(follow.cache == forgemeter::CacheOutcome::not_stored);
  CHECK(rig.server().requests() == 2);
  CHECK(rig.transport().cache_figures().entries == 0);
  CHECK(rig.last_if_none_match().empty());
}

TEST_CASE("stream and cache: a leader past the bound releases its followers then, not after its transfer") {
  CacheRig rig(bound_256k());
  const std::string body = pattern(1u << 20);
  rig.server().set("/big", {.body = body, .etag = "\"b\""});
  rig.server().hold();
  std::atomic<bool> follower_done{false};
  bool waited = false, done_while_leading = false;
  Taken follow_sunk;
  Request lead_req = rig.get_request("/big");
  lead_req.on_body = [&](const BodyChunk&) {
    // the first piece past the bound: the follower must finish while this transfer is still on
    if (!std::exchange(waited, true)) done_while_leading = eventually([&] { return follower_done.load(); });
    return true;
  };
  Response lead, follow;
  std::thread lt([&] { lead = rig.transport().perform(lead_req); });
  const bool led = eventually([&] { return rig.server().requests() == 1; });
  std::thread ft([&] {
    follow = rig.transport().perform(streamed(rig, "/big", follow_sunk));
    follower_done = true;
  });
  const bool follows = led && eventually([&] { return rig.transport().cache_figures().following == 1; });
  rig.server().release();
  lt.join();
  ft.join();
  REQUIRE(follows);
  CHECK(done_while_leading);
  CHECK(lead.ok());
  CHECK(follow.ok());
  CHECK_FALSE(follow.coalesced);
  CHECK(follow_sunk.bytes == body);
}

TEST_CASE("stream and cache: a request the cache does not take streams as it comes, not kept") {
  CacheRig rig(bound_256k());
  const std::string body = pattern(200u << 10);
  rig.server().set("/r", {.body = body, .etag = "\"r\""});
  Taken s;
  Request r = streamed(rig, "/r", s);
  r.headers.emplace_back("Cache-Control", "no-cache");  // the caller's own: bypassed
  const Response res = rig.transport().perform(r);
  REQUIRE(res.ok());
  CHECK(res.cache == forgemeter::CacheOutcome::bypassed);
  CHECK(s.bytes == body);
  CHECK(s.calls > 1);
  CHECK(rig.transport().cache_figures().entries == 0);
}

TEST_CASE("stream and cache: a sink that refuses the handed body is sink_refused; the entry is still kept") {
  CacheRig rig(bound_256k());
  rig.server().set("/r", {.body = "some body", .etag = "\"r\""});
  Request r = rig.get_request("/r");
  r.on_body = [](const BodyChunk&) { return false; };
  const Response res = rig.transport().perform(r);
  CHECK(res.error.code == forgemeter::TransportErrc::sink_refused);
  CHECK(res.status == 200);
  CHECK(rig.transport().cache_figures().entries == 1);  // the answer came whole: kept for the next read
}
