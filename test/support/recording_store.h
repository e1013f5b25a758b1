// Test helper: a LeaseStore that forwards every call to a real store and
// records what was sent when and what came back — to observe a campaign's
// calls (send instants, unanswered attempts, the release after them).
// Thread-safe.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "forgemeter/lease.h"

namespace fmtest {

struct RecordedCall {
  std::string op;  // acquire, renew, release, inspect
  std::string owner;
  std::chrono::steady_clock::time_point sent, answered;
  forgemeter::LeaseStatus status = forgemeter::LeaseStatus::no_answer;               // acquire, renew, release
  forgemeter::LeaseState::Status state = forgemeter::LeaseState::Status::no_answer;  // inspect
  std::string error;
};

class RecordingStore final : public forgemeter::LeaseStore {
 public:
  explicit RecordingStore(forgemeter::LeaseStore& inner) : inner_(inner) {}

  forgemeter::LeaseResult acquire(std::string_view name, std::string_view owner, forgemeter::WallTime now,
                                  forgemeter::Duration ttl, const forgemeter::Deadline& d) override {
    return record("acquire", owner, [&] { return inner_.acquire(name, owner, now, ttl, d); });
  }
  forgemeter::LeaseResult renew(std::string_view name, std::string_view owner, forgemeter::WallTime now,
                                forgemeter::Duration ttl, const forgemeter::Deadline& d) override {
    return record("renew", owner, [&] { return inner_.renew(name, owner, now, ttl, d); });
  }
  forgemeter::LeaseResult release(std::string_view name, std::string_view owner,
                                  const forgemeter::Deadline& d) override {
    return record("release", owner, [&] { return inner_.release(name, owner, d); });
  }
  forgemeter::LeaseState inspect(std::string_view name, const forgemeter::Deadline& d) override {
    return record("inspect", "", [&] { return inner_.inspect(name, d); });
  }

  std::vector<RecordedCall> calls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }

 private:
  template <typename F>
  std::invoke_result_t<F> record(const char* op, std::string_view owner, F call) {
    auto sent = std::chrono::steady_clock::now();
    auto r = call();
    RecordedCall c{op, std::string(owner), sent, std::chrono::steady_clock::now()};
    if constexpr (std::is_same_v<decltype(r), forgemeter::LeaseState>)
      c.state = r.status;
    else
      c.status = r.status;
    c.error = r.error;
    std::lock_guard lock(mu_);
    calls_.push_back(std::move(c));
    return r;
  }

  forgemeter::LeaseStore& inner_;
  mutable std::mutex mu_;
  std::vector<RecordedCall> calls_;
};

}  // namespace fmtest
