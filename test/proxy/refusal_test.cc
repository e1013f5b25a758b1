// The proxy's own answers in the forge's shape, and Cache-Status.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "proxy/cache_status.h"
#include "proxy/refusal.h"

using namespace forgemeter;
using namespace forgemeter::proxy;
using namespace std::chrono_literals;

namespace {

std::optional<std::string> field(const Refusal& r, std::string_view name) {
  for (const auto& [n, v] : r.headers)
    if (n == name) return v;
  return std::nullopt;
}

const UtcMillis kNow{std::chrono::seconds(1'790'000'000) + 250ms};

}  // namespace

TEST_CASE("a spent budget or a reserve: 403, Remaining 0, Reset and Retry-After, GitHub's JSON") {
  const Refusal r = budget_refused("API rate limit exceeded", "budget_reserved", kNow + 90s, kNow);
  CHECK(r.status == 403);
  CHECK(field(r, "X-RateLimit-Remaining") == "0");
  CHECK(field(r, "X-RateLimit-Reset") == "1790000091");  // the reset's second, rounded up
  CHECK(field(r, "Retry-After") == "90");
  CHECK(field(r, "Content-Type") == "application/json; charset=utf-8");
  CHECK(field(r, "X-Forgemeter-Refusal") == "budget_reserved");
  const auto json = nlohmann::json::parse(r.body);
  CHECK(json["message"] == "API rate limit exceeded");
  CHECK(json["documentation_url"].get<std::string>().starts_with("https://docs.github.com/"));
  CHECK(budget_refused("m", "c", kNow + 1s, kNow, 429).status == 429);
  CHECK(field(budget_refused("m", "c", kNow - 5s, kNow), "Retry-After") == "1");  // never 0 or negative
}

TEST_CASE("an elected lane this replica does not lead: 503, Retry-After, GitHub's JSON naming the holder and term") {
  const Refusal r = lane_not_led("sweeper", "web-2 \"b\"", 7, 0s);
  CHECK(r.status == 503);
  CHECK(field(r, "Retry-After") == "1");  // never 0
  CHECK(field(r, "X-Forgemeter-Refusal") == "lane_refused");
  const auto json = nlohmann::json::parse(r.body);
  CHECK(json["holder"] == "web-2 \"b\"");  // anyone's owner name, kept as data
  CHECK(json["term"] == 7);
  CHECK(json["lane"] == "sweeper");
  CHECK(json["message"].get<std::string>().find("web-2 \"b\" does, in term 7") != std::string::npos);
  CHECK(json["documentation_url"].get<std::string>().starts_with("https://docs.github.com/"));
  const auto free = nlohmann::json::parse(lane_not_led("sweeper", "", 3, 2s).body);
  CHECK(free["holder"] == "");
  CHECK(free["message"].get<std::string>().find("nobody holds it") != std::string::npos);
}

TEST_CASE("a message is data, never JSON syntax: quotes, control bytes and bad UTF-8 stay inside the string") {
  const std::string hostile = "lane \"x\"}, {\"a\":1\n\x01\xff";
  const Refusal r = bad_request(hostile);
  CHECK(r.status == 400);
  const auto json = nlohmann::json::parse(r.body);
  REQUIRE(json.is_object());
  CHECK(json.size() == 2);
  CHECK(json["message"].get<std::string>().starts_with("lane \"x\"}, {\"a\":1\n\x01"));
}

TEST_CASE("each failure without the forge's answer maps to its status") {
  const RefusalContext c{.now = kNow, .reset = kNow + 30s, .retry_after = 7s};
  const std::vector<std::pair<TransportErrc, int>> expected = {{TransportErrc::invalid_request, 400},
                                                               {TransportErrc::resolve_failed, 502},
                                                               {TransportErrc::connect_failed, 502},
                                                               {TransportErrc::tls_failed, 502},
                                                               {TransportErrc::timeout, 504},
                                                               {TransportErrc::connection_dropped, 502},
                                                               {TransportErrc::redirect_limit, 502},
                                                               {TransportErrc::redirect_refused, 502},
                                                               {TransportErrc::budget_exhausted, 403},
                                                               {TransportErrc::secondary_rate_limited, 429},
                                                               {TransportErrc::lane_refused, 429},
                                                               {TransportErrc::installation_paused, 429},
                                                               {TransportErrc::budget_reserved, 403},
                                                               {TransportErrc::cancelled, 429},
                                                               {TransportErrc::paced, 429},
                                                               {TransportErrc::sink_refused, 502},
                                                               {TransportErrc::source_failed, 400},
                                                               {TransportErrc::other, 502}};
  for (const auto& [code, status] : expected) {
    CAPTURE(to_string(code));
    const Refusal r = refusal_for(code, c);
    CHECK(r.status == status);
    CHECK(field(r, "X-Forgemeter-Refusal") == (code == TransportErrc::timeout ? "timeout" : to_string(code)));
    CHECK_FALSE(nlohmann::json::parse(r.body)["message"].get<std::string>().empty());
    if (status == 429) CHECK(field(r, "Retry-After") == "7");
    if (status == 403) {
      CHECK(field(r, "Retry-After") == "30");
      CHECK(field(r, "X-RateLimit-Remaining") == "0");
    }
  }
  // Without a known reset, a spent budget resets after retry_after.
  CHECK(field(refusal_for(TransportErrc::budget_exhausted, {.now = kNow, .retry_after = 12s}), "Retry-After") == "12");
}

TEST_CASE("too busy and the upstream's failures") {
  CHECK(too_busy("queue full", "queue_full", 0s).status == 429);
  CHECK(field(too_busy("queue full", "queue_full", 0s), "Retry-After") == "1");
  CHECK(upstream_unreachable("connect_failed").status == 502);
  CHECK(upstream_timeout().status == 504);
}

TEST_CASE("Cache-Status: RFC 9211, named forgemeter, never a hit") {
  CHECK(cache_status(CacheOutcome::stored) == "forgemeter; fwd=uri-miss; stored");
  CHECK(cache_status(CacheOutcome::not_stored) == "forgemeter; fwd=uri-miss");
  CHECK(cache_status(CacheOutcome::revalidated) == "forgemeter; fwd=stale; fwd-status=304");
  CHECK(cache_status(CacheOutcome::changed) == "forgemeter; fwd=stale; fwd-status=200; stored");
  CHECK(cache_status(CacheOutcome::coalesced) == "forgemeter; collapsed");
  CHECK(cache_status(CacheOutcome::bypassed) == "forgemeter; fwd=bypass");
  CHECK_FALSE(cache_status(CacheOutcome::no_cache));
  for (auto o : {CacheOutcome::stored, CacheOutcome::changed, CacheOutcome::not_stored, CacheOutcome::revalidated,
                 CacheOutcome::coalesced, CacheOutcome::bypassed})
    CHECK(cache_status(o)->find("hit") == std::string::npos);
}
