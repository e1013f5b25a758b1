#include "appauth/app_jwt.h"

#include "appauth/base64url.h"
#include "core/ascii.h"
#include "core/number_text.h"

#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <exception>
#include <memory>

namespace forgemeter::appauth {
namespace {

using nlohmann::json;
using std::chrono::seconds;

// Seconds since the epoch a claim may hold: beyond them `* 1000` could wrap.
constexpr std::int64_t kLatestSecond = 100'000'000'000;  // the year 5138

// A JWT part decoded and parsed: a JSON object, or nullopt.
std::optional<json> json_object(std::string_view part) {
  const auto text = base64url_decode(part);
  if (!text) return std::nullopt;
  json j = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  return j;
}

// A NumericDate claim in whole seconds, or nullopt (missing, not a whole
// number, negative, or past the year 5138).
std::optional<std::int64_t> whole_seconds(const json& claims, const char* name) {
  const auto it = claims.find(name);
  if (it == claims.end() || !it->is_number_integer()) return std::nullopt;
  if (it->is_number_unsigned()) {
    const auto v = it->get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(kLatestSecond)) return std::nullopt;
    return static_cast<std::int64_t>(v);
  }
  const auto v = it->get<std::int64_t>();
  if (v < 0 || v > kLatestSecond) return std::nullopt;
  return v;
}

// `iss` as an App ID: a whole JSON number, or a string of decimal digits
// (GitHub takes both; Octokit sends a number, some clients a string).
std::optional<std::uint64_t> app_id_of(const json& claims) {
  const auto it = claims.find("iss");
  if (it == claims.end()) return std::nullopt;
  if (it->is_number_unsigned()) return it->get<std::uint64_t>();
  if (it->is_string())
    return core_detail::parse_whole(it->get_ref<const std::string&>(), 1, static_cast<std::uint64_t>(kLatestSecond));
  return std::nullopt;
}

// RSASSA-PKCS1-v1_5 with SHA-256 of `signed_text` under `key`.
bool rs256_verifies(EVP_PKEY* key, std::string_view signed_text, const std::string& signature) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_PKEY_CTX* pctx = nullptr;  // owned by ctx
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), &pctx, EVP_sha256(), nullptr, key) != 1) return false;
  if (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) != 1) return false;
  return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                          reinterpret_cast<const unsigned char*>(signed_text.data()), signed_text.size()) == 1;
}

// The claims' time window against `now`, GitHub's rules.
std::optional<std::string> window_problem(std::int64_t iat, std::int64_t exp, UtcMillis now) {
  const UtcMillis issued{seconds(iat)}, expires{seconds(exp)};
  if (expires <= now) return fmt::format("the JWT expired: exp is {} ms before now", (now - expires).count());
  if (issued > now + kIatLeeway)
    return fmt::format("the JWT's iat is {} s in the future (at most {} s)",
                       std::chrono::duration_cast<seconds>(issued - now).count(), kIatLeeway.count());
  if (exp - iat > kLongestLife.count())
    return fmt::format("the JWT lives {} s from iat to exp (at most {} s)", exp - iat, kLongestLife.count());
  return std::nullopt;
}

std::variant<AppJwt, std::string> verify(std::string_view jwt, const AppKeys& keys, UtcMillis now) {
  if (jwt.size() > kMaxJwtBytes) return fmt::format("a JWT of {} bytes (at most {})", jwt.size(), kMaxJwtBytes);
  const auto dot1 = jwt.find('.');
  const auto dot2 = dot1 == std::string_view::npos ? dot1 : jwt.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || jwt.find('.', dot2 + 1) != std::string_view::npos)
    return std::string("not a JWT: three base64url parts joined by '.'");
  const auto header = json_object(jwt.substr(0, dot1));
  if (!header) return std::string("not a JWT: its header is not a base64url JSON object");
  const auto alg = header->find("alg");
  if (alg == header->end() || !alg->is_string() || alg->get_ref<const std::string&>() != "RS256")
    return std::string("the JWT's alg is not RS256 (an App's JWT is signed with RS256 only)");
  const auto claims = json_object(jwt.substr(dot1 + 1, dot2 - dot1 - 1));
  if (!claims) return std::string("not a JWT: its payload is not a base64url JSON object");
  const auto app_id = app_id_of(*claims);
  if (!app_id) return std::string("the JWT's iss is not an App ID (a whole number)");
  EVP_PKEY* key = keys.key_of(*app_id);
  if (key == nullptr) return fmt::format("the JWT's iss, App {}, is not an App whose key was given", *app_id);
  const auto signature = base64url_decode(jwt.substr(dot2 + 1));
  if (!signature || !rs256_verifies(key, jwt.substr(0, dot2), *signature))
    return fmt::format("the JWT's signature does not verify under App {}'s key", *app_id);
  const auto iat = whole_seconds(*claims, "iat");
  const auto exp = whole_seconds(*claims, "exp");
  if (!iat || !exp) return std::string("the JWT's iat and exp are not both whole seconds since the epoch");
  if (auto why = window_problem(*iat, *exp, now)) return std::move(*why);
  return AppJwt{*app_id, UtcMillis{seconds(*iat)}, UtcMillis{seconds(*exp)}};
}

}  // namespace

std::variant<AppJwt, std::string> verify_app_jwt(std::string_view jwt, const AppKeys& keys, UtcMillis now) {
  try {
    return verify(jwt, keys, now);
  } catch (const std::exception& e) {  // bad_alloc, or a JSON type this code failed to check
    return fmt::format("the JWT could not be checked: {}", e.what());
  }
}

std::optional<std::string_view> bearer_of(std::string_view authorization) {
  constexpr std::string_view kScheme = "bearer";
  const auto value = core_detail::trimmed(authorization);
  if (!core_detail::istarts_with(value, kScheme) || value.size() == kScheme.size()) return std::nullopt;
  if (value[kScheme.size()] != ' ' && value[kScheme.size()] != '\t') return std::nullopt;
  const auto token = core_detail::trimmed(value.substr(kScheme.size()));
  if (token.empty() || token.find_first_of(" \t") != std::string_view::npos) return std::nullopt;
  return token;
}

}  // namespace forgemeter::appauth
