// Whom a proxied request is charged to: an installation, a learned token, a
// credential's keyed hash; bounded, and never the token itself.
#include <doctest/doctest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "forgemeter/testing/manual_clock.h"
#include "proxy/spender.h"

using namespace forgemeter;
using namespace forgemeter::proxy;
using namespace std::chrono_literals;

namespace {

const UtcMillis kStart{std::chrono::sys_days{std::chrono::year{2026} / 9 / 30} + 14h};

std::vector<serve::Field> auth(std::string value) { return {{"Authorization", std::move(value)}}; }

}  // namespace

TEST_CASE("a credential's key: the same for the same credential, shown as cred: and 12 hex, never the token") {
  CredentialKeys keys;
  const auto a1 = keys.key(auth("token ghp_secret_a"));
  const auto a2 = keys.key(auth("token ghp_secret_a"));
  const auto b = keys.key(auth("token ghp_secret_b"));
  REQUIRE(a1.key);
  REQUIRE(b.key);
  CHECK(a1.key->shown == a2.key->shown);
  CHECK(a1.key->id == a2.key->id);
  CHECK(a1.key->shown != b.key->shown);
  CHECK(a1.key->shown.size() == 17);
  CHECK(a1.key->shown.starts_with("cred:"));
  CHECK(a1.key->shown.find("secret") == std::string::npos);
  CHECK(a1.key->id >= kCredentialIdBase);
  CHECK(a1.key->id - kCredentialIdBase < (std::uint64_t{1} << 48));
  // Another process (another key) shows another key for the same token: nothing to look up.
  CredentialKeys other;
  CHECK(other.key(auth("token ghp_secret_a")).key->shown != a1.key->shown);
  // No credential, no key; the proxy's own Proxy-Authorization is none.
  CHECK_FALSE(keys.key({{"Accept", "*/*"}}).key);
  CHECK_FALSE(keys.key({{"Proxy-Authorization", "Basic x"}}).key);
}

TEST_CASE("every credential field a forge reads makes the key: GitLab's tokens and cookies too") {
  CredentialKeys keys;
  const auto p = keys.key({{"PRIVATE-TOKEN", "glpat-1"}});
  const auto j = keys.key({{"JOB-TOKEN", "glpat-1"}});
  const auto c = keys.key({{"Cookie", "user_session=1"}});
  const auto both = keys.key({{"Authorization", "token t"}, {"Cookie", "user_session=1"}});
  const auto alone = keys.key(auth("token t"));
  std::set<std::string> shown;
  for (const auto* k : {&p, &j, &c, &both, &alone}) {
    REQUIRE(k->key);
    shown.insert(k->key->shown);
  }
  CHECK(shown.size() == 5);
  // The field's name, any case, is the same field.
  CHECK(keys.key({{"private-token", "glpat-1"}}).key->shown == p.key->shown);
}

TEST_CASE("bounded: past max_keys a new credential is refused until one has been idle; never merged") {
  ManualClock clock(kStart);
  CredentialKeys keys({.max_keys = 2, .idle = 60s, .clock = &clock});
  CHECK(keys.key(auth("token a")).key);
  clock.advance(10s);
  CHECK(keys.key(auth("token b")).key);
  const auto c = keys.key(auth("token c"));
  CHECK(c.refused);
  CHECK_FALSE(c.key);
  CHECK(keys.key(auth("token a")).key);  // a known one still goes (and is used again now)
  clock.advance(55s);                    // b idle 55 s, a 55 s: neither yet
  CHECK(keys.key(auth("token c")).refused);
  clock.advance(5s);  // b idle 60 s
  CHECK(keys.key(auth("token c")).key);
  CHECK(keys.size() == 2);
  CredentialKeys none({.max_keys = 0});
  CHECK(none.key(auth("token a")).refused);
}

TEST_CASE("installation tokens: learned from an access_tokens answer, forgotten at expiry or on DELETE") {
  ManualClock clock(kStart);
  InstallationTokens tokens({.clock = &clock});
  const std::string answer = R"({"token":"ghs_abc","expires_at":"2026-09-30T15:00:00Z","permissions":{}})";
  CHECK(tokens.observe("POST", "/app/installations/101/access_tokens", 201, answer, std::nullopt));
  CHECK(tokens.installation_of("ghs_abc") == 101u);
  CHECK_FALSE(tokens.installation_of("ghs_other"));
  clock.advance(59min);
  CHECK(tokens.installation_of("ghs_abc") == 101u);
  clock.advance(1min);
  CHECK_FALSE(tokens.installation_of("ghs_abc"));
  // Learned again, then revoked by the client.
  CHECK(tokens.observe("POST", "/app/installations/7/access_tokens", 201,
                       R"({"token":"ghs_abc","expires_at":"2026-09-30T16:00:00Z"})", std::nullopt));
  CHECK(tokens.installation_of("ghs_abc") == 7u);
  CHECK(tokens.observe("DELETE", "/installation/token", 204, "", std::string_view("ghs_abc")));
  CHECK_FALSE(tokens.installation_of("ghs_abc"));
}

TEST_CASE("installation tokens: what is not an access_tokens answer teaches nothing") {
  ManualClock clock(kStart);
  InstallationTokens tokens({.clock = &clock});
  const std::string ok = R"({"token":"t","expires_at":"2026-09-30T15:00:00Z"})";
  CHECK_FALSE(tokens.observe("POST", "/app/installations/101/access_tokens", 403, ok, std::nullopt));
  CHECK_FALSE(tokens.observe("GET", "/app/installations/101/access_tokens", 201, ok, std::nullopt));
  CHECK_FALSE(tokens.observe("POST", "/app/installations/x/access_tokens", 201, ok, std::nullopt));
  CHECK_FALSE(tokens.observe("POST", "/app/installations//access_tokens", 201, ok, std::nullopt));
  CHECK_FALSE(tokens.observe("POST", "/app/installations/101/access_tokens", 201, "not json", std::nullopt));
  CHECK_FALSE(tokens.observe("POST", "/app/installations/101/access_tokens", 201, R"({"token":1})", std::nullopt));
  CHECK_FALSE(tokens.observe("POST", "/app/installations/101/access_tokens", 201,
                             R"({"token":"t","expires_at":"yesterday"})", std::nullopt));
  // Already expired: nothing kept.
  tokens.observe("POST", "/app/installations/101/access_tokens", 201,
                 R"({"token":"t","expires_at":"2026-09-30T13:00:00Z"})", std::nullopt);
  CHECK(tokens.size() == 0);
}

TEST_CASE("installation tokens: bounded, the soonest to expire goes first") {
  ManualClock clock(kStart);
  InstallationTokens tokens({.max_tokens = 2, .clock = &clock});
  tokens.learn("a", 1, kStart + 30min);
  tokens.learn("b", 2, kStart + 10min);
  tokens.learn("c", 3, kStart + 50min);
  CHECK(tokens.size() == 2);
  CHECK_FALSE(tokens.installation_of("b"));
  CHECK(tokens.installation_of("a") == 1u);
  CHECK(tokens.installation_of("c") == 3u);
}

TEST_CASE("parse_utc and the installation header's digits") {
  CHECK(parse_utc("2016-07-11T22:14:10Z") == UtcMillis(std::chrono::seconds(1468275250)));
  for (std::string_view bad : {"", "2016-07-11 22:14:10Z", "2016-07-11T22:14:10", "2016-13-11T22:14:10Z",
                               "2016-07-11T22:14:1xZ", "2016-07-11T22:14:10+00:00"})
    CHECK_FALSE(parse_utc(bad));
  CHECK(parse_installation("101") == 101u);
  for (std::string_view bad :
       {"", "0", "01", "-1", "1.0", " 1", "abc", "12345678901234567890", "4611686018427387904", "9999999999999999999"})
    CHECK(why_bad_installation(bad));
  CHECK(parse_installation("4611686018427387903") == (std::uint64_t{1} << 62) - 1);
}

TEST_CASE("the spender: the installation header, then a learned token, then the credential's key") {
  ManualClock clock(kStart);
  CredentialKeys keys({.clock = &clock});
  InstallationTokens tokens({.clock = &clock});
  tokens.learn("ghs_learned", 42, kStart + 1h);

  Inbound in = filter_request({{"X-Forgemeter-Installation", "101"}, {"Authorization", "token ghs_learned"}});
  Spender s = spender_of(in, keys, tokens);
  CHECK(s.installation == 101u);
  CHECK(s.shown == "101");

  in = filter_request({{"Authorization", "Bearer ghs_learned"}});
  s = spender_of(in, keys, tokens);
  CHECK(s.installation == 42u);
  CHECK(s.shown == "42");

  in = filter_request({{"Authorization", "token ghp_personal"}});
  s = spender_of(in, keys, tokens);
  CHECK(s.installation >= kCredentialIdBase);
  CHECK(s.shown.starts_with("cred:"));

  s = spender_of(filter_request({{"Accept", "*/*"}}), keys, tokens);
  CHECK(s.installation == 0u);
  CHECK(s.shown.empty());
  CHECK_FALSE(s.refused);

  s = spender_of(filter_request({{"X-Forgemeter-Installation", "12ab"}}), keys, tokens);
  CHECK(s.refused);
  CHECK(s.status == 400);
}

TEST_CASE("credential keys and tokens from many threads at once") {
  CredentialKeys keys({.max_keys = 100});
  InstallationTokens tokens({.max_tokens = 50});
  std::atomic<int> refused{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        if (keys.key(auth("token " + std::to_string(t * 1000 + i))).refused) ++refused;
        tokens.learn(std::to_string(t * 1000 + i), 1, system_clock().now() + 1h);
        (void)tokens.installation_of(std::to_string(i));
      }
    });
  for (auto& t : threads) t.join();
  CHECK(keys.size() == 100);
  CHECK(refused == 500);
  CHECK(tokens.size() == 50);
}
