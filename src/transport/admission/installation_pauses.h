// installation_pauses.h — a secondary rate limit pauses an installation, not
// one request.
//
// GitHub asks a client that met a secondary limit to send nothing more until
// the Retry-After instant (at least a minute when absent), and may ban one
// that keeps sending. So after one, the Transport pauses that installation:
// every later request charged to it, from any thread and lane, waits here
// before it is put on the wire. A pause only ever grows; an expired one is
// dropped by the next pause().
//
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "forgemeter/clock.h"

namespace forgemeter::transport_detail {

struct Pause {
  SteadyTime until;      // on the Transport's clock's steady face
  UtcMillis wall_until;  // the same instant as a wall time, for messages
};

class InstallationPauses {
 public:
  // Pauses `installation` (non-zero) on the origin `origin` (origin_id:
  // another forge's installation of that number goes on) until `p` unless
  // it is paused longer already; forgets the pauses over by steady `now`.
  void pause(std::uint64_t installation, std::uint64_t origin, const Pause& p, SteadyTime now);
  // Whether any installation was ever paused (one atomic load).
  bool any() const noexcept { return any_.load(std::memory_order_acquire); }
  // The pause of `installation` on `origin` still in force at steady `now`, if any.
  std::optional<Pause> active(std::uint64_t installation, std::uint64_t origin, SteadyTime now) const;

 private:
  using Key = std::pair<std::uint64_t, std::uint64_t>;  // installation, origin
  std::atomic<bool> any_{false};
  mutable core_detail::Mutex mu_;
  std::vector<std::pair<Key, Pause>> pauses_ GUARDED_BY(mu_);
};

// The pause a secondary limit asking for `wait` (>= 0) at `now` (steady) and
// `wall_now` (the same instant) makes. Saturated, never wrapped: a wait past
// what a clock can hold (a Retry-After in the year 9999) ends at that clock's
// last instant, a pause past any pause.max_wait.
Pause pause_after(std::chrono::seconds wait, SteadyTime now, UtcMillis wall_now) noexcept;
// Whether `p` was saturated by pause_after (it ends at the clock's end).
inline bool endless(const Pause& p) noexcept { return p.until == SteadyTime::max(); }

}  // namespace forgemeter::transport_detail
