// load_board.h — a Transport's requests in flight and waiting now, per
// installation, for Transport::figures().
//
// Each hop holds one in-flight mark from admission until its exchange is over
// (InFlightSlot, admission.h); a request held by a pause, its pace or a
// secondary limit holds one waiting mark of that cause while it waits. A hop
// SecondaryLimits admits is counted there (its max_in_flight needs the count
// anyway) and not here: figures() adds the two. The board keeps the first
// `max_installations` distinct installations (0 aside) apart, each at a
// stable address, and folds later ones into one `other`; an installation seen
// (its first admitted hop, or wait) stays, at 0 when idle, so memory and
// series are bounded by that number.
// Marks are relaxed atomics: taking one is a lookup (none for installation 0)
// and an increment.
//
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "forgemeter/lines.h"
#include "forgemeter/rate_limits.h"

namespace forgemeter::transport_detail {

using Mark = std::atomic<std::uint64_t>;

struct LoadCounts {
  Mark in_flight{0};
  std::array<Mark, kWaitCauses> waiting{};
};

class LoadBoard {
 public:
  explicit LoadBoard(std::size_t max_installations) : max_(max_installations) {}

  // The counts `installation` is charged to (its own, or the folded other's).
  LoadCounts& counts(std::uint64_t installation);

  // Every installation seen, with `admitted` (installation, in flight counted
  // elsewhere) added to its own or the folded counts.
  TransportFigures figures(const std::vector<std::pair<std::uint64_t, unsigned>>& admitted) const;

 private:
  LoadCounts& named(std::uint64_t installation) const REQUIRES(mu_);

  const std::size_t max_;
  LoadCounts none_;  // installation 0: no lookup
  std::atomic<bool> none_seen_{false};
  mutable LoadCounts other_;
  mutable core_detail::Mutex mu_;
  mutable bool other_seen_ GUARDED_BY(mu_) = false;
  mutable std::map<std::uint64_t, LoadCounts> named_ GUARDED_BY(mu_);  // nodes stay put
};

// While it lives, one mark of `counts`' waiting for `cause`, taken by begin()
// (a request that waited), given back when it is destroyed.
class WaitingMark {
 public:
  WaitingMark(LoadBoard& board, std::uint64_t installation, WaitCause cause) noexcept
      : board_(board), installation_(installation), cause_(cause) {}
  WaitingMark(const WaitingMark&) = delete;
  WaitingMark& operator=(const WaitingMark&) = delete;
  ~WaitingMark() {
    if (mark_) mark_->fetch_sub(1, std::memory_order_relaxed);
  }
  void begin() {
    if (mark_) return;
    mark_ = &board_.counts(installation_).waiting[static_cast<std::size_t>(cause_)];
    mark_->fetch_add(1, std::memory_order_relaxed);
  }

 private:
  LoadBoard& board_;
  std::uint64_t installation_;
  WaitCause cause_;
  Mark* mark_ = nullptr;
};

}  // namespace forgemeter::transport_detail
