// hour_end.h — how an hour of the demo ends quiet: when the forge's counts are
// read, no request of the hour is on the wire.
//
// The fleet's loops run on loops() and send every request through perform(),
// which gives it requests() as its Request::stop. end(), called while the
// clock stands still at the hour's last second: perform() sends nothing more
// and loops() fires, so the loops start no more requests; the requests on the
// wire land; once every request left waits on the still clock (its pace, a
// pause, a retry), requests() fires and ends those waits, which send nothing.
// Cancelling a request on the wire instead would leave it counted by its
// meter (as libcurl was about to send it) and received by the forge or not,
// as the race fell: the report of the replicas' lines and the forge's own
// count would then differ by chance.
//
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <stop_token>

#include "demo/fast_clock.h"
#include "forgemeter/transport.h"

namespace forgemeter::demo {

class HourEnd {
 public:
  explicit HourEnd(const FastClock& clock) : clock_(clock) {}

  // The loops' stop: the hour is ending, start no more requests.
  std::stop_token loops() const { return loops_.get_token(); }

  // Performs `request` through `through` as one of the hour's requests, with
  // requests() as its stop: its response; nullopt, nothing sent, once the
  // hour is ending.
  std::optional<Response> perform(Transport& through, Request request);

  // With the clock standing still: as above; false when requests were still
  // not waiting on the clock after `within` (real time), cancelled anyway.
  bool end(std::chrono::milliseconds within);

 private:
  const FastClock& clock_;
  std::stop_source loops_, requests_;
  std::mutex mu_;
  std::condition_variable left_;  // a request left perform()
  std::size_t performing_ = 0;
  bool ending_ = false;
};

}  // namespace forgemeter::demo
