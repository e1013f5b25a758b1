// credential_keys.h — who a proxied request spends, when it cannot say:
// its credential, kept as a keyed hash (keyed_hash.h) and shown as
// `cred:` + 12 hex digits, so two tokens never share budget readings,
// pacing or secondary-limit windows, and no line, metric or log can give
// a token back.
//
// The credential is every credential field a forge reads, name and value,
// in the order sent: Authorization, PRIVATE-TOKEN, JOB-TOKEN (GitLab's) and
// Cookie (GitHub's ETags and Vary depend on it). Proxy-Authorization is the
// proxy's own, never forwarded, never a key. A key is a number the
// Transport can charge as an installation: kCredentialIdBase plus the
// shown 48 bits, above every installation id a header may name.
//
// Bounded: at most `max_keys` keys at once. A key unused for `idle` is
// forgotten to make room; when none is, a new credential is refused (the
// command answers 429 with Retry-After: `idle`), never merged with another.
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/mutex.h"
#include "core/thread_annotations.h"
#include "forgemeter/clock.h"
#include "proxy/keyed_hash.h"
#include "serve/exchange.h"

namespace forgemeter::proxy {

inline constexpr std::uint64_t kCredentialIdBase = std::uint64_t{1} << 62;

struct CredentialKey {
  std::uint64_t id = 0;  // kCredentialIdBase + the shown 48 bits
  std::string shown;     // "cred:" + 12 hex digits
};

struct Keyed {
  std::optional<CredentialKey> key;    // nullopt without a credential (or when refused)
  std::optional<std::string> refused;  // the bound is reached: 429
};

struct CredentialKeyOptions {
  std::size_t max_keys = 4096;
  std::chrono::seconds idle{3600};  // an App's installation token lives an hour
  const Clock* clock = nullptr;     // nullptr: system_clock()
};

class CredentialKeys {
 public:
  explicit CredentialKeys(CredentialKeyOptions options = {});

  // The key of the credential in these (a request's) fields.
  Keyed key(const std::vector<serve::Field>& fields);
  std::size_t size() const;

 private:
  KeyedHash hash_;
  const CredentialKeyOptions options_;
  const Clock& clock_;
  mutable core_detail::Mutex mu_;
  std::unordered_map<std::uint64_t, SteadyTime> last_used_ GUARDED_BY(mu_);
};

// The credential in these fields as one string (empty: none), in the form
// hashed: each credential field's lower-cased name, NUL, value, NUL.
std::string credential_of(const std::vector<serve::Field>& fields);

}  // namespace forgemeter::proxy
