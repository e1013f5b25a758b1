// pacer.h — the pacing governor's model for one paced lane on one budget:
// what this replica knows of the budget's window, and the lane's share of it.
//
// The model (docs/rate-limits.md#pacing): the forge's remaining R falls at the
// whole fleet's rate f, whoever spends. The budget allows g = (R − keep) /
// (reset − now) from now on. A lane that spent a part p of what R fell by
// over its last step sends at p·g: if every paced spender does the same, the
// fleet's next rate is g, whatever the number of replicas, and no replica
// knows that number. A small growth per step lets a newcomer or an idle lane
// win a share back (the fleet then runs a little above g, which the next
// readings of R correct). With no usable reading (none yet, or its reset has
// passed) a lane sends one probe per probe interval.
//
// Plain values, no lock: PacingGovernor (pacing_governor.h) holds them under
// its mutex. Times: the forge's instants are wall times; waits are steady.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "forgemeter/clock.h"
#include "forgemeter/rate_limits.h"
#include "meter/reading.h"

namespace forgemeter::transport_detail {

using forgemeter::PacingTuning;  // forgemeter/rate_limits.h

// Why the tuning cannot be used, or nullopt.
std::optional<std::string> check(const PacingTuning& t);

// Whether a paced request may go now; if not, when to ask again, and the
// earliest it can go as things stand (a token due, or the reset's probe): a
// request that may not wait that long fails at once instead of waiting to ask.
struct PaceVerdict {
  bool go = true;
  SteadyTime retry_at{};
  SteadyTime due{};  // >= retry_at
};

// What this replica knows of one budget's current window.
struct BudgetWindow {
  enum class Offered { unusable, stale, same_window, new_window };

  bool known = false;
  UtcMillis reset{};
  std::uint64_t remaining = 0;  // the lowest this window: answers may arrive out of order
  std::uint64_t limit = 0;      // 0: not announced
  UtcMillis seen{};             // when the lowest was seen
  Duration length{};            // the longest reset − seen of any reading: the window's length as far as known

  // Takes a reading; says what it was to this window.
  Offered offer(const meter::Reading& r);
};

class Pacer {
 public:
  Pacer(std::uint64_t keep, double keep_fraction, const PacingTuning& tuning)
      : keep_(keep), keep_fraction_(keep_fraction), tuning_(tuning), tokens_(1) {}

  // A request of this lane wants to go at `wall`/`steady` (the same instant).
  // On go, it is counted as this lane's spend.
  PaceVerdict admit(const BudgetWindow& w, UtcMillis wall, SteadyTime steady);
  // `w` took a reading seen at `at` (`o` is what offer() said): closes the
  // step being measured when it is due.
  void observe(const BudgetWindow& w, BudgetWindow::Offered o, UtcMillis at);

  double share() const noexcept { return share_; }
  // Units a second this lane may spend at wall time `now` (0 when it must wait for the reset).
  double allowed_rate(const BudgetWindow& w, UtcMillis now) const;

 private:
  double kept(const BudgetWindow& w) const;
  double behind_line(const BudgetWindow& w, double spendable, UtcMillis now) const;
  Duration step_length(const BudgetWindow& w) const;
  PaceVerdict probe(SteadyTime steady);
  void grant();
  void anchor(const BudgetWindow& w, UtcMillis at);

  std::uint64_t keep_;
  double keep_fraction_;
  PacingTuning tuning_;

  double share_ = 1;       // until the first reading: as if alone
  bool measured_ = false;  // share_ was estimated from a reading
  bool waiting_ = false;   // told to wait since its last grant
  std::uint64_t own_ = 0;
  double tokens_;
  std::optional<SteadyTime> tokens_at_;
  std::optional<SteadyTime> last_probe_;

  // The step being measured: from the reading it started at.
  bool anchored_ = false;
  UtcMillis anchor_at_{};
  std::uint64_t anchor_remaining_ = 0;
  std::uint64_t anchor_own_ = 0;
};

}  // namespace forgemeter::transport_detail
