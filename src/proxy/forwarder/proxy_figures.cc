// ProxyFigures (proxy_figures.h).
#include "proxy/forwarder/proxy_figures.h"

namespace forgemeter::proxy {

void ProxyFigures::answered(const std::string& lane, const std::string& outcome) {
  core_detail::MutexLock lock(mu_);
  ++answers_[{lane, outcome}];
}

void ProxyFigures::upstream_latency(std::chrono::microseconds took) {
  const auto us = static_cast<std::uint64_t>(std::max<std::int64_t>(0, took.count()));
  core_detail::MutexLock lock(mu_);
  ++latency_count_;
  latency_sum_us_ += us;
  for (std::size_t i = 0; i < kBounds.size(); ++i)
    if (us <= kBounds[i] * 1000) ++buckets_[i];
}

void ProxyFigures::app_token(AppTokenOutcome outcome) {
  core_detail::MutexLock lock(mu_);
  ++app_tokens_.at(static_cast<std::size_t>(outcome));
}

namespace {

MetricFamilySnapshot gauge(std::string name, std::string help, std::size_t value) {
  return {std::move(name), std::move(help), MetricType::gauge, false, {{{}, value}}};
}

}  // namespace

MeterMetrics ProxyFigures::families(const Gauges& now) const {
  MeterMetrics out;
  core_detail::MutexLock lock(mu_);
  MetricFamilySnapshot answers{"forgemeter_proxy_requests_total",
                               "Requests the proxy answered, by lane and what its cache did (or the refusal's code).",
                               MetricType::counter,
                               false,
                               {}};
  for (const auto& [key, n] : answers_) answers.samples.push_back({{{"lane", key.first}, {"cache", key.second}}, n});
  out.families.push_back(std::move(answers));
  MetricFamilySnapshot latency{"forgemeter_proxy_upstream_seconds",
                               "Time from sending a request upstream to the forge's answer.",
                               MetricType::histogram,
                               false,
                               {}};
  latency.bounds.assign(kBounds.begin(), kBounds.end());
  latency.samples.push_back({{}, latency_count_, {buckets_.begin(), buckets_.end()}, latency_sum_us_});
  out.families.push_back(std::move(latency));
  MetricFamilySnapshot tokens{"forgemeter_proxy_app_tokens_total",
                              "POST …/access_tokens requests: answered with a held installation token (shared), "
                              "forwarded and the forge's token held (minted), or forwarded otherwise.",
                              MetricType::counter,
                              false,
                              {}};
  static constexpr std::array<const char*, 3> kOutcomes = {"shared", "minted", "forwarded"};
  for (std::size_t i = 0; i < kOutcomes.size(); ++i)
    tokens.samples.push_back({{{"outcome", kOutcomes[i]}}, app_tokens_[i]});
  out.families.push_back(std::move(tokens));
  out.families.push_back(gauge("forgemeter_proxy_connections", "Client connections open now.", now.connections));
  out.families.push_back(
      gauge("forgemeter_proxy_forwarding", "Requests being forwarded now (waiting or on the wire).", now.forwarding));
  out.families.push_back(
      gauge("forgemeter_proxy_waiting", "Requests waiting for a forwarding thread now.", now.waiting));
  return out;
}

}  // namespace forgemeter::proxy
