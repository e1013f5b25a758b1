#include "lease/faulty_store.h"

#include <algorithm>

namespace forgemeter::testing {
namespace {

LeaseResult no_answer(std::string why) { return {LeaseStatus::no_answer, {}, {}, 0, std::move(why)}; }

}  // namespace

FaultyStore::FaultyStore(std::shared_ptr<LeaseStore> inner) : inner_(std::move(inner)) {}

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

LeaseResult FaultyStore::call(Op op, WallTime now, const Deadline& deadline, const Forward& forward) {
  const Clock& clock = *deadline.clock;
  if (harness_sending_) harness_sending_(op);  // set before the calls begin
  // A write that lands after its caller gave up is not bound by the caller's deadline.
  const Deadline late = Deadline::after(system_clock(), std::chrono::seconds(10));
  const SteadyTime sent = clock.steady_now();
  const FaultPlan plan = take(op);
  LeaseResult r;
  switch (plan.fault) {
    case Fault::none: r = forward(deadline); break;
    case Fault::unreachable: r = no_answer("injected: store unreachable"); break;
    case Fault::hang:
      r = clock.wait_until(deadline.at, deadline.stop) ? no_answer("injected: no answer by the deadline")
                                                       : no_answer("stopped: injected hang abandoned");
      break;
    case Fault::slow:
      if (sent + plan.delay <= deadline.at) {
        if (clock.wait_until(sent + plan.delay, deadline.stop)) {
          r = forward(late);
        } else {
          if (plan.lands) forward(late);
          r = no_answer("stopped: injected slow answer abandoned");
        }
      } else {
        const bool reached = clock.wait_until(deadline.at, deadline.stop);
        if (plan.lands) forward(late);
        r = no_answer(reached ? "injected: slow answer abandoned at the deadline"
                              : "stopped: injected slow answer abandoned");
      }
      break;
    case Fault::lose_answer:
      forward(deadline);
      r = no_answer("injected: answer lost");
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
  CallRecord rec{op, sent, clock.steady_now(), now, r.status};
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
  return call(Op::acquire, now, deadline, [&](const Deadline& d) { return inner_->acquire(name, owner, now, ttl, d); });
}

LeaseResult FaultyStore::renew(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                               const Deadline& deadline) {
  return call(Op::renew, now, deadline, [&](const Deadline& d) { return inner_->renew(name, owner, now, ttl, d); });
}

LeaseResult FaultyStore::release(std::string_view name, std::string_view owner, const Deadline& deadline) {
  return call(Op::release, {}, deadline, [&](const Deadline& d) { return inner_->release(name, owner, d); });
}

LeaseResult FaultyStore::inspect(std::string_view name, const Deadline& deadline) {
  return call(Op::inspect, {}, deadline, [&](const Deadline& d) { return inner_->inspect(name, d); });
}

}  // namespace forgemeter::testing
