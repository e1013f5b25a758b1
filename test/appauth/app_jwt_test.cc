// An App's JWT verified as GitHub verifies it: each way a JWT can fail is
// refused with its reason, and only a good one names its App.
#include "appauth/app_jwt.h"

#include "support/app_jwt_mint.h"

#include <doctest/doctest.h>

#include <string>
#include <variant>

namespace fa = forgemeter::appauth;
using forgemeter::UtcMillis;
using std::chrono::seconds;

namespace {

constexpr std::uint64_t kApp = 4242;
constexpr std::int64_t kNow = 1'800'000'000;  // a fixed "now": the verifier reads no clock
const UtcMillis now_ms{seconds(kNow)};

const fa::AppKeys& keys() {
  static const fa::AppKeys k = [] {
    fa::AppKeys out;
    REQUIRE_FALSE(out.add(kApp, fmtest::app_key_pair(0).public_pem));
    REQUIRE_FALSE(out.add(kApp + 1, fmtest::app_key_pair(1).public_pem));
    return out;
  }();
  return k;
}

const std::string& priv(int which = 0) { return fmtest::app_key_pair(which).private_pem; }

// The reason `jwt` is refused ("" when it verifies).
std::string refusal(const std::string& jwt, UtcMillis at = now_ms) {
  const auto got = fa::verify_app_jwt(jwt, keys(), at);
  return std::holds_alternative<std::string>(got) ? std::get<std::string>(got) : std::string();
}

std::string tamper_payload(const std::string& jwt, const std::string& payload_json) {
  const auto d1 = jwt.find('.'), d2 = jwt.rfind('.');
  return jwt.substr(0, d1 + 1) + fmtest::base64url(payload_json) + jwt.substr(d2);
}

}  // namespace

TEST_CASE("a good JWT names its App and its window") {
  const auto got = fa::verify_app_jwt(fmtest::mint(kApp, priv(), kNow - 60, kNow + 540), keys(), now_ms);
  REQUIRE(std::holds_alternative<fa::AppJwt>(got));
  const auto& jwt = std::get<fa::AppJwt>(got);
  CHECK(jwt.app_id == kApp);
  CHECK(jwt.issued_at == UtcMillis{seconds(kNow - 60)});
  CHECK(jwt.expires_at == UtcMillis{seconds(kNow + 540)});
  // The second App's key verifies its own JWTs: each App is its own.
  CHECK(refusal(fmtest::mint(kApp + 1, priv(1), kNow, kNow + 600)) == "");
}

TEST_CASE("a JWT signed by another key does not verify") {
  CHECK(refusal(fmtest::mint(kApp, priv(1), kNow, kNow + 600)).find("signature does not verify") != std::string::npos);
  // iss naming App 1's partner, signed by App 0's key: the key of iss decides.
  CHECK(refusal(fmtest::mint(kApp + 1, priv(0), kNow, kNow + 600)).find("signature") != std::string::npos);
}

TEST_CASE("time: expired, iat in the future, too long a life") {
  CHECK(refusal(fmtest::mint(kApp, priv(), kNow - 600, kNow)).find("expired") != std::string::npos);
  CHECK(refusal(fmtest::mint(kApp, priv(), kNow - 600, kNow - 1)).find("expired") != std::string::npos);
  CHECK(refusal(fmtest::mint(kApp, priv(), kNow - 600, kNow + 1)) == "");
  // exp is exclusive to the millisecond
  CHECK(refusal(fmtest::mint(kApp, priv(), kNow - 60, kNow + 1),
                UtcMillis{seconds(kNow + 1)} - std::chrono::milliseconds(1)) == "");
  CHECK(refusal(fmtest::mint(kApp, priv(), kNow - 60, kNow + 1), UtcMillis{seconds(kNow + 1)}).find("expired") !=
        std::string::npos);
  // iat up to 60 s ahead (a client's clock a little fast), not 61
  CHECK(refusal(fmtest::mint(kApp, priv(), kNow + 60, kNow + 600)) == "");
  CHECK(refusal(fmtest::mint(kApp, priv(), kNow + 61, kNow + 600)).find("iat") != std::string::npos);
  // a life of 10 min + 60 s at most
  CHECK(refusal(fmtest::mint(kApp, priv(), kNow - 60, kNow + 600)) == "");
  CHECK(refusal(fmtest::mint(kApp, priv(), kNow - 61, kNow + 600)).find("lives 661 s") != std::string::npos);
  CHECK(refusal(fmtest::mint(kApp, priv(), kNow, kNow + 3600)).find("lives") != std::string::npos);
}

TEST_CASE("only RS256: none, HS256 keyed with the public key, RS512, a missing alg") {
  for (const char* alg : {"none", "HS256", "RS512", "rs256", "RS256 "}) {
    CAPTURE(alg);
    CHECK(refusal(fmtest::mint(kApp, priv(), kNow, kNow + 600, alg)).find("alg is not RS256") != std::string::npos);
  }
  const std::string payload =
      R"({"iat":)" + std::to_string(kNow) + R"(,"exp":)" + std::to_string(kNow + 600) + R"(,"iss":4242})";
  CHECK(refusal(fmtest::mint_raw(R"({"typ":"JWT"})", payload, priv())).find("alg") != std::string::npos);
  CHECK(refusal(fmtest::mint_raw(R"({"alg":256})", payload, priv())).find("alg") != std::string::npos);
  // An unsigned JWT ("none", empty signature) is refused by its alg, before any key is used.
  CHECK(refusal(fmtest::mint_raw(R"({"alg":"none"})", payload, priv())).find("alg") != std::string::npos);
}

TEST_CASE("iss: another App, a string, missing, not a number") {
  CHECK(refusal(fmtest::mint(7, priv(), kNow, kNow + 600)).find("App 7, is not an App whose key was given") !=
        std::string::npos);
  const auto with_iss = [](const std::string& iss) {
    return fmtest::mint_raw(R"({"alg":"RS256","typ":"JWT"})",
                            R"({"iat":)" + std::to_string(kNow) + R"(,"exp":)" + std::to_string(kNow + 600) +
                                (iss.empty() ? "" : R"(,"iss":)" + iss) + "}",
                            priv());
  };
  const auto as_string = fa::verify_app_jwt(with_iss("\"4242\""), keys(), now_ms);
  REQUIRE(std::holds_alternative<fa::AppJwt>(as_string));
  CHECK(std::get<fa::AppJwt>(as_string).app_id == kApp);
  for (const char* bad :
       {"", "\"-4242\"", "\"+4242\"", "\"4242 \"", "\"0x1092\"", "-4242", "4242.5", "true", "null", "[4242]", "\"\""}) {
    CAPTURE(bad);
    CHECK(refusal(with_iss(bad)).find("iss is not an App ID") != std::string::npos);
  }
}

TEST_CASE("claims: iat and exp whole seconds") {
  const auto with = [](const std::string& claims) {
    return fmtest::mint_raw(R"({"alg":"RS256"})", R"({"iss":4242,)" + claims + "}", priv());
  };
  CHECK(refusal(with(R"("iat":)" + std::to_string(kNow) + R"(,"exp":)" + std::to_string(kNow + 600))) == "");
  for (const std::string& bad :
       {std::string(R"("iat":1)"), R"("exp":)" + std::to_string(kNow + 600),
        R"("iat":")" + std::to_string(kNow) + R"(","exp":)" + std::to_string(kNow + 600),
        R"("iat":)" + std::to_string(kNow) + R"(,"exp":1.8e9)", R"("iat":-1,"exp":)" + std::to_string(kNow + 600),
        R"("iat":)" + std::to_string(kNow) + R"(,"exp":18446744073709551615)"}) {
    CAPTURE(bad);
    CHECK(refusal(with(bad)).find("whole seconds") != std::string::npos);
  }
}

TEST_CASE("a tampered payload, a tampered header") {
  const std::string good = fmtest::mint(kApp, priv(), kNow, kNow + 600);
  const std::string longer =
      R"({"iat":)" + std::to_string(kNow) + R"(,"exp":)" + std::to_string(kNow + 3000) + R"(,"iss":4242})";
  CHECK(refusal(tamper_payload(good, longer)).find("signature does not verify") != std::string::npos);
  // The other App's ID put in a JWT signed by the first: refused by the key of the ID it claims.
  const std::string other =
      R"({"iat":)" + std::to_string(kNow) + R"(,"exp":)" + std::to_string(kNow + 600) + R"(,"iss":4243})";
  CHECK(refusal(tamper_payload(good, other)).find("signature does not verify") != std::string::npos);
  std::string flipped = good;
  flipped[flipped.size() - 5] = flipped[flipped.size() - 5] == 'A' ? 'B' : 'A';
  CHECK(refusal(flipped).find("signature does not verify") != std::string::npos);
  const std::string header_with_kid = fmtest::base64url(R"({"alg":"RS256","typ":"JWT","kid":"x"})");
  CHECK(refusal(header_with_kid + good.substr(good.find('.'))).find("signature does not verify") != std::string::npos);
}

TEST_CASE("truncated, garbage and oversized JWTs are refused, never thrown") {
  const std::string good = fmtest::mint(kApp, priv(), kNow, kNow + 600);
  for (std::size_t cut : {std::size_t{0}, std::size_t{1}, good.find('.'), good.find('.') + 1, good.rfind('.'),
                          good.rfind('.') + 1, good.size() - 1}) {
    CAPTURE(cut);
    CHECK(refusal(good.substr(0, cut)) != "");
  }
  for (const std::string& junk :
       {std::string("."), std::string(".."), std::string("..."), std::string("a.b.c"), good + ".x", good + "=",
        std::string("eyJhbGciOiJSUzI1NiJ9.e30.") + std::string(2, '\0'), fmtest::base64url("[1]") + ".e30.AA",
        fmtest::base64url("{\"alg\":\"RS256\"") + ".e30.AA", std::string("\xff\xfe.\x80.\x01"),
        fmtest::base64url(R"({"alg":"RS256"})") + "." + fmtest::base64url("\xff\xfe") + ".AA"}) {
    CAPTURE(junk);
    CHECK(refusal(junk) != "");
  }
  const std::string huge = good + std::string(fa::kMaxJwtBytes, 'A');
  CHECK(refusal(huge).find("bytes (at most 8192)") != std::string::npos);
}

TEST_CASE("bearer_of: the JWT of an Authorization value") {
  CHECK(fa::bearer_of("Bearer abc.def.ghi") == std::optional<std::string_view>("abc.def.ghi"));
  CHECK(fa::bearer_of("bearer abc") == std::optional<std::string_view>("abc"));
  CHECK(fa::bearer_of("BEARER \t abc  ") == std::optional<std::string_view>("abc"));
  CHECK_FALSE(fa::bearer_of("token abc"));
  CHECK_FALSE(fa::bearer_of("Bearerabc"));
  CHECK_FALSE(fa::bearer_of("Bearer "));
  CHECK_FALSE(fa::bearer_of("Bearer a b"));
  CHECK_FALSE(fa::bearer_of(""));
}
