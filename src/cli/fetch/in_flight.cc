#include "cli/fetch/in_flight.h"

namespace forgemeter::cli {

bool InFlight::enter() {
  std::lock_guard lock(mu_);
  if (source_.stop_requested()) return false;
  ++busy_;
  return true;
}

void InFlight::leave() {
  std::lock_guard lock(mu_);
  if (--busy_ == 0) idle_.notify_all();
}

void InFlight::stop(std::chrono::milliseconds bound) {
  std::unique_lock lock(mu_);
  source_.request_stop();
  idle_.wait_for(lock, bound, [this] { return busy_ == 0; });
}

void InFlight::park_if_stopped() {
  std::unique_lock lock(mu_);
  if (source_.stop_requested()) idle_.wait(lock, [] { return false; });
}

}  // namespace forgemeter::cli
