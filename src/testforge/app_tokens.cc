#include "testforge/app_tokens.h"

#include <openssl/rand.h>

#include <array>

#include <stdexcept>

#include "core/authorization.h"

namespace forgemeter::testforge {
namespace {

// 36 letters and digits after "ghs_": GitHub's 40 characters.
std::string random_token() {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::array<unsigned char, 36> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1)
    throw std::runtime_error("loopback forge: no random bytes for a token");
  std::string out = "ghs_";
  for (unsigned char b : bytes) out += kAlphabet[b % 62];  // a slight bias: a test token, not a secret
  return out;
}

}  // namespace

AppTokens::AppTokens(const std::vector<ForgeApp>& apps, std::chrono::milliseconds lifetime)
    : apps_(apps), lifetime_(lifetime) {
  for (const ForgeApp& app : apps_) {
    if (auto why = keys_.add(app.id, app.public_key_pem)) throw std::invalid_argument("loopback forge: " + *why);
    for (const ForgeInstallation& inst : app.installations) {
      if (inst.id == 0 || !installations_.emplace(inst.id, Found{&inst, app.id}).second)
        throw std::invalid_argument("loopback forge: installation " + std::to_string(inst.id) + " is 0 or given twice");
    }
  }
}

std::optional<AppTokens::Found> AppTokens::installation(std::uint64_t id) const {
  const auto it = installations_.find(id);
  if (it == installations_.end()) return std::nullopt;
  return it->second;
}

AppTokens::Minted AppTokens::mint(std::uint64_t installation, UtcMillis now) {
  Minted out{random_token(), now + lifetime_};
  core_detail::MutexLock lock(mu_);
  std::erase_if(tokens_, [now](const auto& t) { return t.second.expires_at <= now; });  // stays small
  tokens_[out.token] = Held{installation, out.expires_at};
  ++minted_[installation];
  return out;
}

std::optional<std::uint64_t> AppTokens::installation_of(std::string_view token, UtcMillis now) const {
  core_detail::MutexLock lock(mu_);
  const auto it = tokens_.find(token);
  if (it == tokens_.end() || it->second.expires_at <= now) return std::nullopt;
  return it->second.installation;
}

bool AppTokens::revoke(std::string_view token, UtcMillis now) {
  core_detail::MutexLock lock(mu_);
  const auto it = tokens_.find(token);
  if (it == tokens_.end() || it->second.expires_at <= now) return false;
  tokens_.erase(it);
  return true;
}

std::uint64_t AppTokens::minted(std::uint64_t installation) const {
  core_detail::MutexLock lock(mu_);
  const auto it = minted_.find(installation);
  return it == minted_.end() ? 0 : it->second;
}

std::optional<std::string_view> installation_token_of(std::string_view authorization) {
  const auto token = core_detail::authorization_token(authorization);
  if (!token || !token->starts_with("ghs_")) return std::nullopt;
  return token;
}

}  // namespace forgemeter::testforge
