// Delivers a campaign's events on a thread of its own, one at a time and in
// order, so a slow callback delays nothing the campaign does. Internal to the
// lease room.
//
// Thread-safety: post() from any thread. The destructor delivers what is
// queued, then joins. Exceptions from the callback are caught and dropped.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <thread>

#include "core/mutex.h"
#include "forgemeter/campaign.h"

namespace forgemeter::lease_detail {

class EventPump {
 public:
  explicit EventPump(std::function<void(const LeaseEvent&)> sink);
  ~EventPump();
  EventPump(const EventPump&) = delete;
  EventPump& operator=(const EventPump&) = delete;

  void post(LeaseEvent e);

 private:
  void loop();

  std::function<void(const LeaseEvent&)> sink_;
  core_detail::Mutex mu_;
  std::condition_variable cv_;
  std::deque<LeaseEvent> queue_ GUARDED_BY(mu_);
  bool closing_ GUARDED_BY(mu_) = false;
  std::thread thread_;  // last: started after the members it uses
};

}  // namespace forgemeter::lease_detail
