// installation_tokens.h — a GitHub App's installation tokens, learned from
// the answers that pass through the proxy, so that a request carrying one
// is charged to its installation: `POST /app/installations/{id}/access_tokens`
// answered 201 with `{"token": …, "expires_at": …}` maps that token to the
// installation until it expires; `DELETE /installation/token` answered 204
// forgets the token it carried. Paths are the forge's, after the upstream
// base and the lane prefix.
//
// A token is kept only as a keyed hash (keyed_hash.h). At most `max_tokens`
// at once: a new one past that first forgets the expired, then the one that
// expires soonest. Time through the given Clock.
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/mutex.h"
#include "core/thread_annotations.h"
#include "forgemeter/clock.h"
#include "proxy/keyed_hash.h"

namespace forgemeter::proxy {

struct InstallationTokenOptions {
  std::size_t max_tokens = 4096;
  const Clock* clock = nullptr;  // nullptr: system_clock()
};

class InstallationTokens {
 public:
  explicit InstallationTokens(InstallationTokenOptions options = {});

  void learn(std::string_view token, std::uint64_t installation, UtcMillis expires_at);
  void forget(std::string_view token);
  // The installation `token` was issued for, while it has not expired.
  std::optional<std::uint64_t> installation_of(std::string_view token) const;
  std::size_t size() const;

  // Learns or forgets from one answer that passed through (`token`: the
  // request's, from its Authorization). Whether it did either.
  bool observe(std::string_view method, std::string_view path, int status, std::string_view body,
               std::optional<std::string_view> token);

 private:
  struct Entry {
    std::uint64_t installation = 0;
    UtcMillis expires{};
  };
  void drop_expired(UtcMillis now) REQUIRES(mu_);
  KeyedHash hash_;
  const std::size_t max_;
  const Clock& clock_;
  mutable core_detail::Mutex mu_;
  std::map<std::uint64_t, Entry> by_token_ GUARDED_BY(mu_);
};

// The installation of `/app/installations/{id}/access_tokens`, or nullopt.
std::optional<std::uint64_t> access_tokens_installation(std::string_view path);

// An installation id as X-Forgemeter-Installation gives it: 1 to 19 decimal
// digits, not 0, below kCredentialIdBase (credential_keys.h). Or why not.
std::optional<std::string> why_bad_installation(std::string_view text);
std::optional<std::uint64_t> parse_installation(std::string_view text);

// What a 201 answer to access_tokens gives: `token` (not empty) and
// `expires_at`; nullopt for any other body, or one past 64 KiB.
struct TokenAnswer {
  std::string token;
  UtcMillis expires_at{};
};
std::optional<TokenAnswer> token_answer(std::string_view body);

// RFC 3339 as GitHub writes `expires_at` ("2016-07-11T22:14:10Z"), or nullopt.
std::optional<UtcMillis> parse_utc(std::string_view text);

}  // namespace forgemeter::proxy
