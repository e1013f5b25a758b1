// The loopback forge's resources (testforge/resources.h): ETags per
// credential and representation, Last-Modified per version, bump(), 304s
// free on GitHub-style hosts, and conditional requests in the ground truth.
#include <doctest/doctest.h>

#include <thread>

#include "forge_calls.h"
#include "testforge/resources.h"
#include "transport_rig.h"

using namespace fmtest;
using forgemeter::AnswerClass;
using forgemeter::Request;

namespace {

const std::string kPath = "/repos/o/r/pulls/1";

// A GET of kPath on api.forge.test as `installation`, with `headers`.
Request read(Rig& rig, std::uint64_t installation, std::vector<forgemeter::Header> headers = {}) {
  return as(installation, {.url = rig.url("api.forge.test", kPath), .headers = std::move(headers)});
}

}  // namespace

TEST_CASE("forge: each credential gets its own ETag and body for one URL; the same one keeps it") {
  Rig rig;
  const auto a1 = rig.transport().perform(read(rig, 31));
  const auto a2 = rig.transport().perform(read(rig, 31));
  const auto b = rig.transport().perform(read(rig, 32));
  const auto anon = rig.transport().perform(read(rig, 0));
  REQUIRE(a1.status == 200);
  REQUIRE(a1.header("ETag"));
  CHECK(a1.header("ETag") == a2.header("ETag"));
  CHECK(a1.body == a2.body);
  CHECK(a1.header("ETag") != b.header("ETag"));
  CHECK(a1.body != b.body);
  CHECK(a1.header("ETag") != anon.header("ETag"));
  // The anonymous body is the plain one; a credential's names its viewer by a
  // keyed hash, never by the token.
  CHECK(anon.body.starts_with(R"({"path":"/repos/o/r/pulls/1","state":"open",)"));  // then GitHub's pull fields
  CHECK(anon.body.find(R"("viewer")") == std::string::npos);
  CHECK(a1.body.find(R"("viewer":")") != std::string::npos);
  for (const auto* res : {&a1, &b}) {
    CHECK(res->body.find("inst-") == std::string::npos);
    CHECK(res->header("ETag")->find("inst-") == std::string_view::npos);
  }
  CHECK(a1.header("ETag") == rig.forge().etag(kPath, "Bearer inst-31"));
  CHECK(a1.header("Vary") == "Accept, Authorization, Accept-Encoding");
  CHECK(a1.header("Last-Modified") == "Wed, 30 Sep 2026 14:30:00 GMT");  // the forge's start

  // B sending A's ETag is not A: a 200 with B's own body, charged.
  auto cross = rig.transport().perform(read(rig, 32, {{"If-None-Match", std::string(*a1.header("ETag"))}}));
  CHECK(cross.status == 200);
  CHECK(cross.body == b.body);
  CHECK(cross.header("X-RateLimit-Used") == "2");
}

TEST_CASE("forge: Accept and Accept-Encoding are representations: their own ETag, Accept its own body") {
  Rig rig;
  const auto plain = rig.transport().perform(read(rig, 33));
  const auto raw = rig.transport().perform(read(rig, 33, {{"Accept", "application/vnd.github.raw+json"}}));
  const auto gzip = rig.transport().perform(read(rig, 33, {{"Accept-Encoding", "gzip"}}));
  REQUIRE(raw.status == 200);
  CHECK(plain.header("ETag") != raw.header("ETag"));
  CHECK(plain.header("ETag") != gzip.header("ETag"));
  CHECK(raw.header("ETag") != gzip.header("ETag"));
  CHECK(raw.body != plain.body);
  CHECK(raw.body.find(R"("media":")") != std::string::npos);
  CHECK(raw.header("ETag") == rig.forge().etag(kPath, "Bearer inst-33", "application/vnd.github.raw+json"));
  // The raw representation's tag does not validate the plain one.
  auto mixed = rig.transport().perform(read(rig, 33, {{"If-None-Match", std::string(*raw.header("ETag"))}}));
  CHECK(mixed.status == 200);
  auto same = rig.transport().perform(read(
      rig, 33, {{"Accept", "application/vnd.github.raw+json"}, {"If-None-Match", std::string(*raw.header("ETag"))}}));
  CHECK(same.status == 304);
}

TEST_CASE("forge: a 304 on a GitHub host is free and still carries the rate-limit headers") {
  Rig rig;
  const auto first = rig.transport().perform(read(rig, 34));
  CHECK(first.header("X-RateLimit-Used") == "1");
  const std::string etag(*first.header("ETag"));
  for (int i = 0; i < 3; ++i) {
    auto hit = rig.transport().perform(read(rig, 34, {{"If-None-Match", etag}}));
    REQUIRE(hit.status == 304);
    CHECK(hit.body.empty());
    CHECK(hit.header("ETag") == etag);
    CHECK(hit.header("Last-Modified") == first.header("Last-Modified"));
    CHECK(hit.header("Vary") == "Accept, Authorization, Accept-Encoding");
    CHECK(hit.header("X-RateLimit-Used") == "1");
    CHECK(hit.header("X-RateLimit-Remaining") == "4999");
    CHECK(hit.header("X-RateLimit-Resource") == "core");
  }
  CHECK(rig.forge().budgets().lowest_remaining(34, "core") == 4999u);
  // Weak comparison, lists and `*` (RFC 9110 §13.1.2).
  CHECK(rig.transport().perform(read(rig, 34, {{"If-None-Match", "W/" + etag}})).status == 304);
  CHECK(rig.transport().perform(read(rig, 34, {{"If-None-Match", "\"x\", " + etag}})).status == 304);
  CHECK(rig.transport().perform(read(rig, 34, {{"If-None-Match", "*"}})).status == 304);
  CHECK(rig.transport().perform(read(rig, 34, {{"If-None-Match", "\"x\""}})).status == 200);

  // GitLab counts every request, a 304 too; Gitea says nothing.
  const std::string gitlab = rig.url(tf::kGitlabHost, kPath);
  auto lab = rig.transport().perform(as(35, {.url = gitlab}));
  auto lab304 = rig.transport().perform(
      as(35, {.url = gitlab, .headers = {{"If-None-Match", std::string(*lab.header("ETag"))}}}));
  CHECK(lab304.status == 304);
  CHECK(lab304.header("RateLimit-Observed") == "2");
  const std::string gitea = rig.url(tf::kGiteaHost, kPath);
  auto tea = rig.transport().perform(as(35, {.url = gitea}));
  auto tea304 =
      rig.transport().perform(as(35, {.url = gitea, .headers = {{"If-None-Match", std::string(*tea.header("ETag"))}}}));
  CHECK(tea304.status == 304);
  CHECK(rate_limit_headers(tea304).empty());
}

TEST_CASE("forge: bump() changes a resource: the next GET is 200 with a new body, ETag and Last-Modified") {
  Rig rig;
  const auto v0 = rig.transport().perform(read(rig, 36));
  const std::string etag0(*v0.header("ETag")), modified0(*v0.header("Last-Modified"));
  CHECK(rig.transport().perform(read(rig, 36, {{"If-Modified-Since", modified0}})).status == 304);

  CHECK(rig.forge().bump(kPath) == 1);  // the clock did not move: Last-Modified still moves on by 1 s
  auto v1 = rig.transport().perform(read(rig, 36, {{"If-None-Match", etag0}}));
  REQUIRE(v1.status == 200);
  CHECK(v1.body == v0.body.substr(0, v0.body.find(",\"viewer\"")) + R"(,"version":1)" +
                       v0.body.substr(v0.body.find(",\"viewer\"")));
  CHECK(v1.header("ETag") != etag0);
  CHECK(v1.header("Last-Modified") == "Wed, 30 Sep 2026 14:30:01 GMT");
  CHECK(v1.header("X-RateLimit-Used") == "2");  // a changed resource is charged
  CHECK(rig.transport().perform(read(rig, 36, {{"If-Modified-Since", modified0}})).status == 200);
  CHECK(rig.transport().perform(read(rig, 36, {{"If-None-Match", std::string(*v1.header("ETag"))}})).status == 304);
  // Every credential sees the change; other paths do not change.
  auto other = rig.transport().perform(read(rig, 37));
  CHECK(other.body.find(R"("version":1)") != std::string::npos);
  CHECK(rig.get(rig.url("api.forge.test", "/repos/o/r/pulls/2"))
            .body.starts_with(R"({"path":"/repos/o/r/pulls/2","state":"open",)"));

  rig.clock().advance(minutes(5));
  CHECK(rig.forge().bump(kPath) == 2);
  CHECK(rig.transport().perform(read(rig, 36)).header("Last-Modified") == "Wed, 30 Sep 2026 14:35:00 GMT");
}

TEST_CASE("forge: If-None-Match decides over If-Modified-Since; an unreadable date is ignored") {
  Rig rig;
  const auto first = rig.transport().perform(read(rig, 38));
  const std::string modified(*first.header("Last-Modified"));
  CHECK(rig.transport().perform(read(rig, 38, {{"If-None-Match", "\"x\""}, {"If-Modified-Since", modified}})).status ==
        200);
  CHECK(rig.transport().perform(read(rig, 38, {{"If-Modified-Since", "yesterday"}})).status == 200);
  CHECK(rig.transport().perform(read(rig, 38, {{"If-Modified-Since", "Wed, 30 Sep 2026 14:29:59 GMT"}})).status == 200);
  CHECK(rig.transport().perform(read(rig, 38, {{"If-Modified-Since", "Thu, 01 Oct 2026 00:00:00 GMT"}})).status == 304);
}

TEST_CASE("forge: ground truth counts conditional requests and 304s by host and lane, as the meter does") {
  Rig rig({}, {.lane_header = std::string(tf::kLaneHeader)});
  const forgemeter::Lane sweep{"sweep"};
  auto first = rig.transport().perform(read(rig, 39));
  const std::string etag(*first.header("ETag"));
  for (int i = 0; i < 3; ++i) {
    Request r = read(rig, 39, {{"If-None-Match", etag}});
    r.lane = sweep;
    CHECK(rig.transport().perform(r).status == 304);
  }
  rig.forge().bump(kPath);
  Request changed = read(rig, 39, {{"If-None-Match", etag}});
  changed.lane = sweep;
  CHECK(rig.transport().perform(changed).status == 200);
  rig.get(rig.url("uploads.forge.test", "/status/304"));  // a 304 nobody asked for

  const auto by = rig.forge().truth().conditionals_by_host_and_lane();
  const std::string api = rig.host("api.forge.test"), uploads = rig.host("uploads.forge.test");
  CHECK(by.at({api, "sweep"}) == tf::Conditionals{.sent = 4, .not_modified = 3});
  CHECK(by.at({uploads, "other"}) == tf::Conditionals{.sent = 0, .not_modified = 1});
  CHECK(by.count({api, "other"}) == 0);  // the first read carried no condition
  const auto c = rig.counted();
  CHECK(c.answered(api, AnswerClass::not_modified) == 3);
  CHECK(c.answered(uploads, AnswerClass::not_modified) == 1);
  const auto kept = rig.forge().truth().requests();
  CHECK_FALSE(kept[0].conditional);
  CHECK(kept[1].conditional);
  rig.forge().truth().clear();
  CHECK(rig.forge().truth().conditionals_by_host_and_lane().empty());
}

TEST_CASE("forge: ?hold=<key> keeps a resource's 200 until release(key); a 304 is not held") {
  Rig rig;
  const std::string url = rig.url("api.forge.test", kPath + "?hold=r1");
  const auto etag = rig.forge().etag(kPath, "Bearer inst-40");
  forgemeter::Response held[2];
  {
    std::jthread a([&] { held[0] = rig.make_transport({})->perform(as(40, {.url = url})); });
    std::jthread b([&] { held[1] = rig.make_transport({})->perform(as(40, {.url = url})); });
    REQUIRE(rig.forge().await_held("r1", 2, seconds(10)));
    // Held as they are, a conditional read of the same resource is answered at once.
    CHECK(rig.transport().perform(as(40, {.url = url, .headers = {{"If-None-Match", etag}}})).status == 304);
    rig.forge().release("r1");
  }
  for (const auto& res : held) {
    CHECK(res.status == 200);
    CHECK(res.header("ETag") == etag);  // the query is no part of the resource
  }
}

TEST_CASE("forge resources: HTTP dates and conditions, without a server") {
  using tf::parse_http_date;
  CHECK(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT") == 784111777);
  CHECK(tf::http_date(784111777) == "Sun, 06 Nov 1994 08:49:37 GMT");
  CHECK_FALSE(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"));  // obsolete forms are not read
  CHECK_FALSE(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMTx"));
  CHECK_FALSE(parse_http_date(""));
  const tf::Representation r{.version = 0, .etag = "\"abc\"", .last_modified = 100};
  CHECK(tf::not_modified(r, "\"abc\"", std::nullopt));
  CHECK(tf::not_modified(r, " W/\"abc\" ", std::nullopt));
  CHECK(tf::not_modified(r, "\"a\",\"abc\"", std::nullopt));
  CHECK_FALSE(tf::not_modified(r, "abc", std::nullopt));
  CHECK_FALSE(tf::not_modified(r, "", std::nullopt));
  CHECK_FALSE(tf::not_modified(r, ",", std::nullopt));
  CHECK_FALSE(tf::not_modified(r, std::nullopt, std::nullopt));
}
