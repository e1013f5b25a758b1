// app_tokens.h — the loopback forge as a GitHub App's forge: the Apps it
// knows (ID, public key, installations), the installation tokens it minted,
// and which installation a token authenticates now.
//
// A token is "ghs_" and 36 random letters and digits, minted for one
// installation with a life of ForgeOptions::token_lifetime on the forge's
// clock (the suite's fast clock for tokens); it authenticates as that
// installation (its budget, its ground truth) until it expires or is
// revoked. An installation's ID is also its budget's key, as `Bearer
// inst-<id>` is: one budget however the installation authenticates.
//
// Thread-safety: every method may be called from any thread at once.
// Errors: the constructor throws std::invalid_argument for a key appauth
// refuses, an App ID or installation ID given twice, or installation 0.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "appauth/app_keys.h"
#include "core/mutex.h"
#include "forgemeter/clock.h"
#include "testforge/forge_apps.h"

namespace forgemeter::testforge {

class AppTokens {
 public:
  AppTokens(const std::vector<ForgeApp>& apps, std::chrono::milliseconds lifetime);
  AppTokens(const AppTokens&) = delete;  // installations_ points into apps_
  AppTokens& operator=(const AppTokens&) = delete;

  struct Found {
    const ForgeInstallation* installation = nullptr;
    std::uint64_t app_id = 0;
  };
  // The installation of that ID and its App, or nullopt.
  std::optional<Found> installation(std::uint64_t id) const;
  const appauth::AppKeys& keys() const noexcept { return keys_; }

  struct Minted {
    std::string token;
    UtcMillis expires_at{};
  };
  // A new token for `installation` (one AppTokens knows), from `now`.
  Minted mint(std::uint64_t installation, UtcMillis now);
  // The installation `token` authenticates at `now`, or nullopt (never
  // minted, expired, revoked).
  std::optional<std::uint64_t> installation_of(std::string_view token, UtcMillis now) const;
  // Ends `token` at once; false when it did not authenticate at `now`.
  bool revoke(std::string_view token, UtcMillis now);
  // Tokens minted for `installation` so far (ground truth for the tests).
  std::uint64_t minted(std::uint64_t installation) const;

 private:
  struct Held {
    std::uint64_t installation = 0;
    UtcMillis expires_at{};
  };
  appauth::AppKeys keys_;
  std::map<std::uint64_t, Found> installations_;  // pointers into apps_
  std::vector<ForgeApp> apps_;
  const std::chrono::milliseconds lifetime_;
  mutable core_detail::Mutex mu_;
  std::map<std::string, Held, std::less<>> tokens_ GUARDED_BY(mu_);
  std::map<std::uint64_t, std::uint64_t> minted_ GUARDED_BY(mu_);
};

// The token of an `Authorization: token <t>` or `Bearer <t>` value (any
// case) when it looks like an installation token ("ghs_…"), else nullopt.
std::optional<std::string_view> installation_token_of(std::string_view authorization);

}  // namespace forgemeter::testforge
