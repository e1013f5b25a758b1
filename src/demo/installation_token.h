// installation_token.h — what a GitHub App's client keeps for one
// installation: its installation token, minted with a fresh App JWT by
// `POST /app/installations/{id}/access_tokens` and renewed once less than a
// minute of it is left, as octokit and PyGithub renew theirs. The mint is
// one of the replica's requests like any other (through its Transport, in
// the lane `app-token`, so its lines show the mints); the token's expiry is
// the forge's `expires_at`, read on the same clock the JWT's times are.
//
// Thread-safety: token() from many threads at once; one mints while the
// others wait for its answer.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "demo/app_jwt_signer.h"
#include "demo/hour_end.h"
#include "forgemeter/clock.h"
#include "forgemeter/transport.h"

namespace forgemeter::demo {

inline constexpr std::string_view kAppTokenLane = "app-token";
// A token with less left than this is renewed before it is sent (octokit's and PyGithub's minute).
inline constexpr std::chrono::minutes kRenewBefore{1};

class InstallationToken {
 public:
  // `base`: where the mint goes ("http://host:port": the forge, or a proxy in front of it).
  InstallationToken(const AppJwtSigner& app, std::uint64_t installation, const Clock& clock, std::string base);

  // The token to send now: the one held while more than kRenewBefore of it
  // is left, else a new one minted through `through` as one of `end`'s
  // requests. nullopt: the hour is ending (nothing sent), or the forge
  // minted none (its answer counted like any other).
  std::optional<std::string> token(Transport& through, HourEnd& end);

 private:
  const AppJwtSigner& app_;
  const std::uint64_t installation_;
  const Clock& clock_;
  const std::string base_;
  std::mutex mu_;  // held across a mint: one mint at a time
  std::string token_;
  UtcMillis expires_at_{};
};

}  // namespace forgemeter::demo
