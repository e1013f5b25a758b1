// secondary.h — the loopback forge's GitHub-style secondary rate limits.
//
// GitHub limits an installation that sends too much at once or writes too
// fast, whatever its primary budget says: it answers 403 (or 429) with a
// "secondary rate limit" message, with `Retry-After` or without it, and keeps
// answering so for a while. The forge models that per installation
// (anonymous included), on GitHub-style hosts only:
//
//   * rules (SecondaryLimit, off by default): a request trips the limit when
//     it arrives while max_in_flight requests of its installation are being
//     handled, or when it is a POST and max_posts_per_minute POSTs of its
//     installation were admitted in the same minute of the forge's clock;
//   * by hand: limit() (tests);
//   * once tripped, the installation is limited for retry_after_s seconds
//     (penalty_s when no Retry-After is sent) from the tripping request's
//     arrival: every request of it arriving before then is answered with the
//     secondary limit — the tripping one included — and spends nothing. Its
//     Retry-After, when sent, is the seconds left of the window, rounded up.
//
// A request that was not limited is admitted; when it is done, finished()
// with the same Connection ends its turn in flight. A connection carries one
// request at a time (HTTP/1.1 without pipelining), so it names the request.
//
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>

#include "forgemeter/clock.h"

namespace forgemeter::testforge {

// The body GitHub sends with a secondary limit.
inline constexpr std::string_view kSecondaryBody =
    R"({"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."})";

struct SecondaryLimit {
  int max_in_flight = 0;         // 0 = off; else more than this many requests of one installation at once trips it
  int max_posts_per_minute = 0;  // 0 = off; else the POST after this many in one forge-clock minute trips it
  std::optional<int> retry_after_s = 60;  // the limited window, sent as Retry-After; nullopt: no Retry-After
  int penalty_s = 60;                     // the limited window when no Retry-After is sent
  int status = 403;                       // the answer's status: 403 or 429
};

class SecondaryLimits {
 public:
  using Connection = std::pair<int, int>;  // (listener port, client port)

  struct Verdict {
    bool limited = false;
    int status = 403;
    std::optional<std::int64_t> retry_after_s;  // when limited and Retry-After is sent
  };

  explicit SecondaryLimits(SecondaryLimit rule) : rule_(rule) {}

  // A request of `installation` arriving at `at` on `connection`.
  Verdict arrive(std::uint64_t installation, bool is_post, UtcMillis at, Connection connection);
  // The admitted request on `connection` is done (no-op when there is none).
  void finished(Connection connection);

  // Limits `installation` until `until`, as a tripped rule would (a later
  // `until` than one already in force wins). status 0: the rule's status.
  void limit(std::uint64_t installation, UtcMillis until, bool send_retry_after, int status = 0);
  // When `installation`'s limited window ends, if it is limited at `now`.
  std::optional<UtcMillis> limited_until(std::uint64_t installation, UtcMillis now) const;
  // Admitted requests of `installation` not yet finished; the most at once so far.
  int in_flight(std::uint64_t installation) const;
  int peak_in_flight(std::uint64_t installation) const;

 private:
  struct Limited {
    UtcMillis until{};
    bool send_retry_after = true;
    int status = 403;
  };
  struct Posts {
    std::int64_t minute = -1;
    int count = 0;
  };
  void trip(std::uint64_t installation, UtcMillis at);    // mu_ held
  Verdict verdict(const Limited& l, UtcMillis at) const;  // mu_ held

  const SecondaryLimit rule_;
  mutable std::mutex mu_;
  std::map<std::uint64_t, Limited> limited_;
  std::map<std::uint64_t, int> in_flight_;
  std::map<std::uint64_t, int> peak_in_flight_;
  std::map<std::uint64_t, Posts> posts_;
  std::map<Connection, std::uint64_t> admitted_;  // connection -> installation
};

}  // namespace forgemeter::testforge
