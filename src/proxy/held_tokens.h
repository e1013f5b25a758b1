// held_tokens.h — the installation tokens the proxy hands to every client of
// an App that asks for the same thing (docs/proxy.md, "GitHub Apps"): the
// forge's 201 answer to `POST /app/installations/{id}/access_tokens`, held
// under the App whose verified JWT minted it, the installation and the
// canonical scope (app_scope.h), and given again only to a request with the
// same three while the token has more than `margin` left. An answer is
// never handed across Apps, installations or scopes: each is part of the key.
//
// One mint per key at a time: clients of one App rotate their tokens at the
// same moment, and two mints in flight at once would be two tokens, each
// re-reading everything. claim() makes the caller the minter; the others
// await() it (bounded) and then find() what it held.
//
// Forgotten at its expiry, or when a `DELETE /installation/token` carrying
// its token was answered 204. At most `max_answers` at once: a new one past
// that first forgets the expired, then the one that expires soonest.
// Time through the given Clock.
// Thread-safety: every method may be called from any thread at once.
// Errors: none (but std::bad_alloc).
#pragma once

#include <chrono>
#include <compare>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "core/mutex.h"
#include "core/thread_annotations.h"
#include "forgemeter/clock.h"
#include "proxy/keyed_hash.h"

namespace forgemeter::proxy {

struct HeldTokenOptions {
  std::size_t max_answers = 1024;
  std::chrono::milliseconds margin{60'000};  // a token with less left is minted afresh
  const Clock* clock = nullptr;              // nullptr: system_clock()
};

// Whose answer it is: the App that minted it, for which installation, with what scope.
struct HeldKey {
  std::uint64_t app = 0, installation = 0;
  std::string scope;  // canonical_scope()
  auto operator<=>(const HeldKey&) const = default;
};

struct HeldAnswer {
  std::string body;          // the forge's, verbatim
  std::string content_type;  // the forge's
  std::string token;         // read from the body
  UtcMillis expires_at{};
};

class HeldTokens {
 public:
  explicit HeldTokens(HeldTokenOptions options = {});

  // The answer held under `key` while its token has more than the margin left.
  std::optional<HeldAnswer> find(const HeldKey& key) const;
  // Holds the forge's 201 answer to the request `key` describes, in place of
  // any before it. Whether it did: not a body with a token and an expiry
  // more than the margin away.
  bool hold(const HeldKey& key, std::string body, std::string content_type);
  // Forgets every answer carrying `token`; how many.
  std::size_t forget(std::string_view token);
  std::size_t size() const;

  // Whether the caller is to mint for `key`: true when no mint for it is in
  // flight (then one is, until the caller's settle(key)); false when one is.
  bool claim(const HeldKey& key);
  void settle(const HeldKey& key);
  // Waits until no mint for `key` is in flight, or `bound` passed (real
  // time: the mint is a real exchange on the wire). Whether none is.
  bool await(const HeldKey& key, std::chrono::milliseconds bound);

 private:
  struct Entry {
    HeldAnswer answer;
    std::uint64_t token_key = 0;  // the token's keyed hash
  };
  void make_room(UtcMillis now) REQUIRES(mu_);
  KeyedHash hash_;
  const std::size_t max_;
  const std::chrono::milliseconds margin_;
  const Clock& clock_;
  mutable core_detail::Mutex mu_;
  std::map<HeldKey, Entry> held_ GUARDED_BY(mu_);
  std::set<HeldKey> minting_ GUARDED_BY(mu_);  // at most one per request in flight
  std::condition_variable minted_;
};

}  // namespace forgemeter::proxy
