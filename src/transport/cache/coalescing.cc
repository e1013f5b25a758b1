#include "transport/cache/coalescing.h"

#include <algorithm>

namespace forgemeter::transport_detail {

class Flights::Flight {
 public:
  bool landed = false;                     // guarded by the Flights' mu_
  std::shared_ptr<const Response> answer;  // set with landed, when the leader had one
  std::size_t followers = 0;               // joined so far
  std::condition_variable_any cv;
};

Flights::Ticket::~Ticket() {
  if (leads_ && flight_) of_->land(*this, nullptr);
}

void Flights::Ticket::land(const Response* answer) { of_->land(*this, answer); }

Flights::Ticket Flights::join(const std::string& key) {
  core_detail::MutexLock lock(mu_);
  auto [it, fresh] = flying_.try_emplace(key);
  if (fresh) {
    try {
      it->second = std::make_shared<Flight>();
    } catch (...) {
      flying_.erase(it);
      throw;
    }
  }
  if (!fresh) ++it->second->followers;
  return Ticket(this, key, it->second, fresh);
}

void Flights::land(Ticket& t, const Response* answer) {
  if (!t.leads_ || !t.flight_) return;
  std::shared_ptr<Flight> f = std::move(t.flight_);
  std::size_t followers = 0;
  {
    core_detail::MutexLock lock(mu_);
    flying_.erase(t.key_);  // no one joins it from now on
    followers = f->followers;
  }
  std::shared_ptr<const Response> copy;
  if (answer && followers > 0) {  // copied once, for them all, outside the lock
    try {
      copy = std::make_shared<const Response>(*answer);
    } catch (...) {  // bad_alloc: the followers send their own
    }
  }
  {
    core_detail::MutexLock lock(mu_);
    f->answer = std::move(copy);
    f->landed = true;
  }
  f->cv.notify_all();
}

Flights::Waited Flights::wait(const Ticket& t, const std::stop_token& stop, SteadyTime deadline, const Clock& clock,
                              std::chrono::milliseconds poll, std::shared_ptr<const Response>& out) {
  Flight& f = *t.flight_;
  core_detail::UniqueLock lock(mu_);
  ++following_;
  struct Leave {
    std::size_t& n;
    ~Leave() { --n; }
  } leave{following_};  // every way out, the lock still held
  for (;;) {
    if (f.landed) {
      if (!f.answer) return Waited::released;
      out = f.answer;  // copied by the follower, outside the lock
      return Waited::answered;
    }
    if (stop.stop_requested()) return Waited::stopped;
    if (clock.steady_now() >= deadline) return Waited::timed_out;
    f.cv.wait_for(lock.native(), stop, std::max(poll, std::chrono::milliseconds(1)),
                  [&]() REQUIRES(mu_) { return f.landed; });
  }
}

std::size_t Flights::following() const {
  core_detail::MutexLock lock(mu_);
  return following_;
}

}  // namespace forgemeter::transport_detail
