#include "demo/hour_end.h"

namespace forgemeter::demo {

std::optional<Response> HourEnd::perform(Transport& through, Request request) {
  {
    std::lock_guard lock(mu_);
    if (ending_) return std::nullopt;
    ++performing_;
  }
  request.stop = requests_.get_token();
  // A 403 (budget spent) or a refusal is counted, not retried; a stopped wait sends nothing.
  Response res = through.perform(request);
  std::lock_guard lock(mu_);
  --performing_;
  left_.notify_all();
  return res;
}

bool HourEnd::end(std::chrono::milliseconds within) {
  {
    std::lock_guard lock(mu_);
    ending_ = true;  // from here performing_ only falls
  }
  loops_.request_stop();
  const std::stop_token waits = requests_.get_token();
  const auto give_up = std::chrono::steady_clock::now() + within;
  bool quiet = false;
  {
    std::unique_lock lock(mu_);
    // Every request left is parked on the still clock, so none is on the wire
    // and none can go there. A thread parking does not tell this: read again
    // every millisecond, or as soon as a request leaves.
    while (!(quiet = performing_ == clock_.parked(waits)) && std::chrono::steady_clock::now() < give_up)
      left_.wait_for(lock, std::chrono::milliseconds(1));
  }
  requests_.request_stop();
  return quiet;
}

}  // namespace forgemeter::demo
