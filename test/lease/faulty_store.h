// test/lease/faulty_store.h — a LeaseStore decorator that injects faults on purpose.
//
// Wraps a real store (a MemoryStore, usually shared by several candidates,
// each with a FaultyStore of its own) and, per operation, either forwards the
// call or misbehaves as a sick store would:
//   unreachable  answers no_answer at once; nothing reaches the store
//   hang         waits until the call's deadline, then no_answer; nothing reaches the store
//   slow         answers after `delay`; when the deadline comes first: no_answer at the
//                deadline, and the write still lands if `lands`
//   (hang and slow end at once, no_answer "stopped: ...", when the Deadline's stop is
//   requested, as lease.h asks of every store; a slow write that `lands` lands then too)
//   lose_answer  forwards (the write lands), then answers no_answer
//   block        waits, ignoring the deadline and the stop, until unblock(); then forwards
// Waits are on the Deadline's clock (Deadline::clock->wait_until), so a
// ManualClock drives them; `block` waits in real time, outside any clock.
// Every call is logged with its send and return instants on that clock.
// Wake-ups (LeaseChanges, lease.h): the decorator has the face, and forwards
// it to the inner store's only while wake_ups(true) — off by default, so a
// campaign through it polls (a wake-up suppressed, or lost).
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "forgemeter/lease.h"

namespace forgemeter::testing {

enum class Op : std::uint8_t { acquire, renew, release, inspect };
enum class Fault : std::uint8_t { none, unreachable, hang, slow, lose_answer, block };

struct FaultPlan {
  Fault fault = Fault::none;
  Duration delay{};    // for `slow`
  bool lands = false;  // for `slow` past its deadline: does the write land?
  int times = -1;      // how many calls it applies to; -1 = until changed
};

struct CallRecord {
  Op op;
  SteadyTime sent, returned;
  WallTime now;                                              // the stamp the caller sent (acquire/renew)
  LeaseStatus status = LeaseStatus::no_answer;               // what acquire, renew or release answered
  LeaseState::Status state = LeaseState::Status::no_answer;  // what inspect answered
};

class FaultyStore final : public LeaseStore, public LeaseChanges {
 public:
  explicit FaultyStore(std::shared_ptr<LeaseStore> inner);

  void set(Op op, FaultPlan plan);
  void set_all(FaultPlan plan);  // every operation
  void heal() { set_all({}); }
  void wake_ups(bool on) { wake_ups_.store(on); }
  void unblock();  // releases every `block`ed call, now and later, until the next set
  // Real-time wait until at least n calls wait in `block`.
  bool await_blocked(std::size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(20));
  // Real-time wait until at least n calls of `op` (not inspect) answered `status`.
  bool await_count(Op op, LeaseStatus status, std::size_t n,
                   std::chrono::milliseconds timeout = std::chrono::seconds(20));
  std::vector<CallRecord> calls() const;
  std::size_t count(Op op) const;
  std::size_t count(Op op, LeaseStatus status) const;
  // Called (with the record) at the end of every call, outside the lock.
  void on_call(std::function<void(const CallRecord&)> f);
  // For the test harness (test/lease/candidate.h), apart from on_call: `sending`
  // runs as every call begins, `answered` where on_call does.
  void harness_hooks(std::function<void(Op)> sending, std::function<void(const CallRecord&)> answered);

  LeaseResult acquire(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                      const Deadline& deadline) override;
  LeaseResult renew(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                    const Deadline& deadline) override;
  LeaseResult release(std::string_view name, std::string_view owner, const Deadline& deadline) override;
  LeaseState inspect(std::string_view name, const Deadline& deadline) override;
  std::uint64_t change_mark(std::string_view name) override;
  bool wait_for_change(std::string_view name, std::uint64_t mark, const Deadline& deadline) override;

 private:
  // R: LeaseResult, or inspect's LeaseState.
  template <typename R>
  R call(Op op, WallTime now, const Deadline& deadline, const std::function<R(const Deadline&)>& forward);
  FaultPlan take(Op op);
  std::size_t count_locked(Op op, LeaseStatus status) const;

  std::shared_ptr<LeaseStore> inner_;
  LeaseChanges* const inner_changes_;  // nullptr: the inner store has no wake-ups
  std::atomic<bool> wake_ups_{false};
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<Op, FaultPlan> plans_;
  bool unblocked_ = false;
  std::size_t blocked_ = 0;
  std::vector<CallRecord> calls_;
  std::function<void(const CallRecord&)> on_call_, harness_answered_;
  std::function<void(Op)> harness_sending_;
};

}  // namespace forgemeter::testing
