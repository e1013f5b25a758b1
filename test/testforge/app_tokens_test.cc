// The loopback forge as a GitHub App's forge: an installation token minted
// for an App's JWT (and refused for every JWT GitHub refuses), charged to
// its installation while it lives, ended by its expiry on the forge's
// clock or by DELETE /installation/token; read by the Transport (libcurl).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "forgemeter/testing/manual_clock.h"
#include "forgemeter/transport.h"
#include "support/app_jwt_mint.h"
#include "testforge/forge.h"

using namespace forgemeter;
using nlohmann::json;
using std::chrono::seconds;

namespace {

constexpr std::uint64_t kApp = 31, kOtherApp = 32;
constexpr std::uint64_t kInst = 501, kSecondInst = 502, kOtherAppInst = 601;

testforge::ForgeOptions app_options(const Clock* clock, std::chrono::milliseconds lifetime) {
  testforge::ForgeOptions o{.clock = clock};
  o.apps = {{kApp,
             fmtest::app_key_pair(0).public_pem,
             {{.id = kInst, .account = "o", .repositories = {"r", "s"}}, {.id = kSecondInst}}},
            {kOtherApp, fmtest::app_key_pair(1).rsa_public_pem, {{.id = kOtherAppInst}}}};
  o.token_lifetime = lifetime;
  return o;
}

struct AppForge {
  ManualClock clock{UtcMillis{seconds(fmtest::unix_now())}};  // the forge's; JWTs minted on it
  testforge::Forge forge;
  Meter meter{MeterOptions{.sink = [](std::string_view) {}}};
  Transport transport{TransportOptions{.meter = &meter, .resolve = forge.resolve()}};

  explicit AppForge(std::chrono::milliseconds lifetime = std::chrono::hours(1))
      : forge(app_options(&clock, lifetime)) {}

  std::int64_t now_s() const { return std::chrono::floor<seconds>(clock.now()).time_since_epoch().count(); }
  std::string jwt(std::uint64_t app = kApp, int key = 0) const {
    return fmtest::mint(app, fmtest::app_key_pair(key).private_pem, now_s() - 30, now_s() + 540);
  }
  std::string url(std::string_view path) const { return forge.url("api.forge.test", path); }
  Response send(std::string method, std::string_view path, const std::string& authorization, std::string body = {}) {
    std::vector<Header> headers;
    if (!authorization.empty()) headers.push_back({"Authorization", authorization});
    return transport.perform(
        {.method = std::move(method), .url = url(path), .headers = std::move(headers), .body = std::move(body)});
  }
  Response mint(std::uint64_t inst, const std::string& jwt, std::string body = {}) {
    return send("POST", "/app/installations/" + std::to_string(inst) + "/access_tokens", "Bearer " + jwt,
                std::move(body));
  }
  std::string token(std::uint64_t inst = kInst) {
    const Response r = mint(inst, jwt());
    REQUIRE(r.status == 201);
    return json::parse(r.body)["token"].get<std::string>();
  }
  std::string message(const Response& r) const { return json::parse(r.body).value("message", ""); }
};

}  // namespace

TEST_CASE("app forge: a token for a good JWT, in GitHub's shape, counted, not charged") {
  AppForge f;
  const Response r = f.mint(kInst, f.jwt());
  REQUIRE(r.status == 201);
  const json body = json::parse(r.body);
  const std::string token = body["token"];
  CHECK(token.size() == 40);
  CHECK(token.starts_with("ghs_"));
  CHECK(body["permissions"] == json{{"contents", "read"}, {"metadata", "read"}, {"pull_requests", "write"}});
  CHECK(body["repository_selection"] == "all");
  CHECK_FALSE(body.contains("repositories"));
  // An hour on the forge's clock, to the second, rounded down.
  const auto expires = f.clock.now() + std::chrono::hours(1);
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::floor<seconds>(expires));
  char want[32];
  std::tm tm{};
  std::strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
  CHECK(body["expires_at"] == want);
  CHECK(f.forge.tokens_minted(kInst) == 1);
  CHECK(f.forge.tokens_minted(kSecondInst) == 0);
  // Not charged to the installation: its budget is whole.
  const auto truth = f.forge.truth().by_installation_and_resource();
  CHECK(truth.size() == 1);
  CHECK(truth.at({0, "app"}) == 1);
  CHECK_FALSE(r.header("X-RateLimit-Used"));
  // Each mint a new token.
  CHECK(f.token() != token);
  CHECK(f.forge.tokens_minted(kInst) == 2);
}

TEST_CASE("app forge: the token authenticates as its installation, its own ETags, until it expires") {
  AppForge f(std::chrono::minutes(10));
  const std::string token = f.token();
  const Response first = f.send("GET", "/repos/o/r/pulls/1", "token " + token);
  REQUIRE(first.status == 200);
  CHECK(first.header("X-RateLimit-Used") == "1");
  CHECK(f.send("GET", "/repos/o/r/pulls/2", "Bearer " + token).header("X-RateLimit-Used") == "2");
  // The same installation's `Bearer inst-<id>` spends the same budget.
  CHECK(f.send("GET", "/repos/o/r/pulls/3", "Bearer inst-501").header("X-RateLimit-Used") == "3");
  CHECK(f.forge.truth().by_installation_and_resource().at({kInst, "core"}) == 3);
  // A revalidation with the token's own ETag: 304, free.
  const std::string etag(*first.header("ETag"));
  const Response again = f.transport.perform(
      {.url = f.url("/repos/o/r/pulls/1"), .headers = {{"Authorization", "token " + token}, {"If-None-Match", etag}}});
  CHECK(again.status == 304);
  CHECK(again.header("X-RateLimit-Used") == "3");
  // A new token's first read is a full, charged 200: ETags are per token.
  const std::string second = f.token();
  const Response fresh = f.transport.perform(
      {.url = f.url("/repos/o/r/pulls/1"), .headers = {{"Authorization", "token " + second}, {"If-None-Match", etag}}});
  CHECK(fresh.status == 200);
  CHECK(fresh.header("X-RateLimit-Used") == "4");
  // Expired on the forge's clock: Bad credentials, charged nothing.
  f.clock.advance(std::chrono::minutes(10) - std::chrono::milliseconds(1));
  CHECK(f.send("GET", "/repos/o/r", "token " + token).status == 200);
  f.clock.advance(std::chrono::milliseconds(1));
  const Response expired = f.send("GET", "/repos/o/r", "token " + token);
  CHECK(expired.status == 401);
  CHECK(f.message(expired) == "Bad credentials");
  CHECK_FALSE(expired.header("X-RateLimit-Used"));
  CHECK(f.forge.truth().by_installation_and_resource().at({kInst, "core"}) == 6);  // the 304 counted, not charged
  CHECK(f.forge.truth().by_installation_and_resource().at({0, "core"}) == 1);
}

TEST_CASE("app forge: DELETE /installation/token ends the token at once") {
  AppForge f;
  const std::string token = f.token(), other = f.token();
  CHECK(f.send("DELETE", "/installation/token", "token " + token).status == 204);
  CHECK(f.send("GET", "/repos/o/r", "token " + token).status == 401);
  CHECK(f.send("DELETE", "/installation/token", "token " + token).status == 401);
  CHECK(f.send("GET", "/repos/o/r", "token " + other).status == 200);  // only that one
  CHECK(f.send("GET", "/repos/o/r", "token ghs_neverminted").status == 401);
  CHECK(f.send("DELETE", "/installation/token", "Bearer inst-501").status == 401);
}

TEST_CASE("app forge: every JWT GitHub refuses is a 401, no token minted") {
  AppForge f;
  const std::string& key = fmtest::app_key_pair(0).private_pem;
  const std::int64_t now = f.now_s();
  const auto refused = [&f](const std::string& authorization) {
    const Response r = f.send("POST", "/app/installations/501/access_tokens", authorization);
    CHECK(r.status == 401);
    return f.message(r);
  };
  CHECK(refused("") == "A JSON web token could not be decoded");
  CHECK(refused("token " + f.jwt()) == "A JSON web token could not be decoded");
  CHECK(refused("Bearer " + f.jwt(kApp, 1)) == "A JSON web token could not be decoded");  // another key
  CHECK(
      refused("Bearer " + fmtest::mint(kApp, key, now - 600, now)).starts_with("'Expiration time' claim ('exp') must"));
  CHECK(refused("Bearer " + fmtest::mint(kApp, key, now + 120, now + 600)).starts_with("'Issued at' claim ('iat')"));
  CHECK(refused("Bearer " + fmtest::mint(kApp, key, now, now + 3600)) ==
        "'Expiration time' claim ('exp') is too far in the future");
  for (const char* alg : {"none", "HS256", "RS512"}) {
    CAPTURE(alg);
    CHECK(refused("Bearer " + fmtest::mint(kApp, key, now, now + 600, alg)) == "A JSON web token could not be decoded");
  }
  CHECK(refused("Bearer " + fmtest::mint(99, key, now, now + 600)) == "A JSON web token could not be decoded");
  CHECK(refused("Bearer " + std::string(4000, 'a')) == "A JSON web token could not be decoded");
  // A JWT minted on the forge's clock: when the forge's clock moves past its exp, it is refused too.
  const std::string jwt = f.jwt();
  f.clock.advance(std::chrono::minutes(10));
  CHECK(refused("Bearer " + jwt).starts_with("'Expiration time'"));
  CHECK(f.forge.tokens_minted(kInst) == 0);
}

TEST_CASE("app forge: 404 for an installation not of the JWT's App") {
  AppForge f;
  CHECK(f.mint(kOtherAppInst, f.jwt()).status == 404);
  CHECK(f.mint(999, f.jwt()).status == 404);
  CHECK(f.message(f.mint(kInst, f.jwt(kOtherApp, 1))) == "Not Found");
  // The other App (its key given as PKCS#1) mints for its own installation.
  CHECK(f.mint(kOtherAppInst, f.jwt(kOtherApp, 1)).status == 201);
  CHECK(f.forge.tokens_minted(kOtherAppInst) == 1);
  CHECK(f.forge.tokens_minted(kInst) == 0);
}

TEST_CASE("app forge: a narrower scope is minted; beyond the installation is a 422") {
  AppForge f;
  const Response named = f.mint(kInst, f.jwt(), R"({"repositories":["s"],"permissions":{"contents":"read"}})");
  REQUIRE(named.status == 201);
  const json body = json::parse(named.body);
  CHECK(body["repository_selection"] == "selected");
  REQUIRE(body["repositories"].size() == 1);
  CHECK(body["repositories"][0]["full_name"] == "o/s");
  CHECK(body["permissions"] == json{{"contents", "read"}});
  // By ID: the id GET /repos/o/r shows.
  const auto id = json::parse(f.send("GET", "/repos/o/r", "Bearer inst-501").body)["id"];
  const Response by_id = f.mint(kInst, f.jwt(), json{{"repository_ids", {id}}}.dump());
  REQUIRE(by_id.status == 201);
  CHECK(json::parse(by_id.body)["repositories"][0]["full_name"] == "o/r");
  CHECK(json::parse(f.mint(kInst, f.jwt(), "{}").body)["repository_selection"] == "all");
  // A repository named twice, by name and by ID: once in the token's list.
  const Response twice = f.mint(kInst, f.jwt(), json{{"repositories", {"r", "r"}}, {"repository_ids", {id}}}.dump());
  REQUIRE(twice.status == 201);
  CHECK(json::parse(twice.body)["repositories"].size() == 1);

  for (const char* beyond :
       {R"({"repositories":["other"]})", R"({"repository_ids":[1]})", R"({"permissions":{"contents":"write"}})",
        R"({"permissions":{"issues":"read"}})", R"({"permissions":{"contents":"lots"}})", R"({"repositories":"r"})"}) {
    CAPTURE(beyond);
    CHECK(f.mint(kInst, f.jwt(), beyond).status == 422);
  }
  CHECK(f.mint(kInst, f.jwt(), "[").status == 400);
  CHECK(f.forge.tokens_minted(kInst) == 4);
}
