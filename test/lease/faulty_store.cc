#include "lease/faulty_store.h"

#include <algorithm>
#include <type_traits>

namespace forgemeter::testing {
namespace {

// A LeaseResult or a LeaseState that says no_answer, and why.
template <typename R>
R no_answer(std::string why) {
  R r;
  r.status = decltype(r.status)::no_answer;
  r.error = std::move(why);
  return r;
}

}  // namespace

FaultyStore::FaultyStore(std::shared_ptr<LeaseStore> inner)
    : inner_(std::move(inner)), inner_changes_(dynamic_cast<LeaseChanges*>(inner_.get())) {}

std::uint64_t FaultyStore::change_mark(std::string_view name) {
  return inner_changes_ != nullptr ? inner_changes_->change_mark(name) : 0;
}

bool FaultyStore::wait_for_change(std::string_view name, std::uint64_t mark, const Deadline& deadline) {
  if (wake_ups_.load() && inner_changes_ != nullptr) return inner_changes_->wait_for_change(name, mark, deadline);
  deadline.clock->wait_until(deadline.at, deadline.stop);  // suppressed: the deadline or the stop
  return false;
}

void FaultyStore::set(Op op, FaultPlan plan) {
  {
    std::lock_guard lock(mu_);
    plans_[op] = plan;
    unblocked_ = false;
  }
  cv_.notify_all();
}

void FaultyStore::set_all(FaultPlan plan) {
  for (Op op : {Op::acquire, Op::renew, Op::release, Op::inspect}) set(op, plan);
}

void FaultyStore::unblock() {
  {
    std::lock_guard lock(mu_);
    unblocked_ = true;
  }
  cv_.notify_all();
}

bool FaultyStore::await_blocked(std::size_t n, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return blocked_ >= n; });
}

bool FaultyStore::await_count(Op op, LeaseStatus status, std::size_t n, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return count_locked(op, status) >= n; });
}

std::vector<CallRecord> FaultyStore::calls() const {
  std::lock_guard lock(mu_);
  return calls_;
}

std::size_t FaultyStore::count(Op op) const {
  std::lock_guard lock(mu_);
  return static_cast<std::size_t>(std::count_if(calls_.begin(), calls_.end(), [&](auto& c) { return c.op == op; }));
}

std::size_t FaultyStore::count_locked(Op op, LeaseStatus status) const {
  return static_cast<std::size_t>(
      std::count_if(calls_.begin(), calls_.end(), [&](auto& c) { return c.op == op && c.status == status; }));
}

std::size_t FaultyStore::count(Op op, LeaseStatus status) const {
  std::lock_guard lock(mu_);
  return count_locked(op, status);
}

void FaultyStore::on_call(std::function<void(const CallRecord&)> f) {
  std::lock_guard lock(mu_);
  on_call_ = std::move(f);
}

void FaultyStore::harness_hooks(std::function<void(Op)> sending, std::function<void(const CallRecord&)> answered) {
  std::lock_guard lock(mu_);
  harness_sending_ = std::move(sending);
  harness_answered_ = std::move(answered);
}

FaultPlan FaultyStore::take(Op op) {
  std::lock_guard lock(mu_);
  FaultPlan& p = plans_[op];
  FaultPlan now = p;
  if (p.times > 0 && --p.times == 0) p = FaultPlan{};
  return now;
}

template <typename R>
R FaultyStore::call(Op op, WallTime now, const Deadline& deadline, const std::function<R(const Deadline&)>& forward) {
  const Clock& clock = *deadline.clock;
  if (harness_sending_) harness_sending_(op);  // set before the calls begin
  // A write that lands after its caller gave up is not bound by the caller's deadline.
  const Deadline late = Deadline::after(system_clock(), std::chrono::seconds(10));
  const SteadyTime sent = clock.steady_now();
  const FaultPlan plan = take(op);
  R r;
  switch (plan.fault) {
    case Fault::none: r = forward(deadline); break;
    case Fault::unreachable: r = no_answer<R>("injected: store unreachable"); break;
    case Fault::hang:
      r = clock.wait_until(deadline.at, deadline.stop) ? no_answer<R>("injected: no answer by the deadline")
                                                       : no_answer<R>("stopped: injected hang abandoned");
      break;
    case Fault::slow:
      if (sent + plan.delay <= deadline.at) {
        if (clock.wait_until(sent + plan.delay, deadline.stop)) {
          r = forward(late);
        } else {
          if (plan.lands) forward(late);
          r = no_answer<R>("stopped: injected slow answer abandoned");
        }
      } else {
        const bool reached = clock.wait_until(deadline.at, deadline.stop);
        if (plan.lands) forward(late);
        r = no_answer<R>(reached ? "injected: slow answer abandoned at the deadline"
                                 : "stopped: injected slow answer abandoned");
      }
      break;
    case Fault::lose_answer:
      forward(deadline);
      r = no_answer<R>("injected: answer lost");
      break;
    case Fault::block: {
      std::unique_lock lock(mu_);
      ++blocked_;
      cv_.notify_all();
      cv_.wait(lock, [&] { return unblocked_; });
      --blocked_;
      lock.unlock();
      r = forward(late);
      break;
    }
  }
  CallRecord rec{op, sent, clock.steady_now(), now};
  if constexpr (std::is_same_v<R, LeaseState>)
    rec.state = r.status;
  else
    rec.status = r.status;
  std::function<void(const CallRecord&)> hook;
  {
    std::lock_guard lock(mu_);
    calls_.push_back(rec);
    hook = on_call_;
  }
  cv_.notify_all();
  if (harness_answered_) harness_answered_(rec);
  if (hook) hook(rec);
  return r;
}

LeaseResult FaultyStore::acquire(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                                 const Deadline& deadline) {
  return call<LeaseResult>(Op::acquire, now, deadline,
                           [&](const Deadline& d) { return inner_->acquire(name, owner, now, ttl, d); });
}

LeaseResult FaultyStore::renew(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                               const Deadline& deadline) {
  return call<LeaseResult>(Op::renew, now, deadline,
                           [&](const Deadline& d) { return inner_->renew(name, owner, now, ttl, d); });
}

LeaseResult FaultyStore::release(std::string_view name, std::string_view owner, const Deadline& deadline) {
  return call<LeaseResult>(Op::release, {}, deadline,
                           [&](const Deadline& d) { return inner_->release(name, owner, d); });
}

LeaseState FaultyStore::inspect(std::string_view name, const Deadline& deadline) {
  return call<LeaseState>(Op::inspect, {}, deadline, [&](const Deadline& d) { return inner_->inspect(name, d); });
}

}  // namespace forgemeter::testing
