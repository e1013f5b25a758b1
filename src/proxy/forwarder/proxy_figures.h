// proxy_figures.h — the proxy's own metric families, beside the meter's:
// requests answered by lane and cache outcome (refusals by their code),
// the forge's answer time, connections, requests forwarding and waiting.
// No per-path or per-credential label: every label's values are bounded
// (lanes by the lane book, outcomes and refusal codes by the code).
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include "core/mutex.h"
#include "core/thread_annotations.h"
#include "forgemeter/meter_metrics.h"

namespace forgemeter::proxy {

// What became of a `POST …/access_tokens`: answered with a held token,
// forwarded with a verified JWT and its 201 held, or forwarded otherwise.
enum class AppTokenOutcome { shared, minted, forwarded };

class ProxyFigures {
 public:
  // What a scrape reads of the server and the pool.
  struct Gauges {
    std::size_t connections = 0, forwarding = 0, waiting = 0;
  };

  // One answer the client got: its lane's name and the cache's word for it
  // ("stored", "revalidated", "collapsed", "bypass", … or "refused:<code>").
  void answered(const std::string& lane, const std::string& outcome);
  // The forge's answer came this long after the request was sent.
  void upstream_latency(std::chrono::microseconds took);
  void app_token(AppTokenOutcome outcome);

  MeterMetrics families(const Gauges& now) const;

 private:
  static constexpr std::array<std::uint64_t, 10> kBounds = {5, 10, 25, 50, 100, 250, 500, 1000, 2500, 10000};  // ms
  mutable core_detail::Mutex mu_;
  std::map<std::pair<std::string, std::string>, std::uint64_t> answers_ GUARDED_BY(mu_);
  std::array<std::uint64_t, kBounds.size()> buckets_ GUARDED_BY(mu_){};
  std::uint64_t latency_count_ GUARDED_BY(mu_) = 0;
  std::uint64_t latency_sum_us_ GUARDED_BY(mu_) = 0;
  std::array<std::uint64_t, 3> app_tokens_ GUARDED_BY(mu_){};
};

}  // namespace forgemeter::proxy
