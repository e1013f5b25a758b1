#include "testforge/ground_truth.h"

#include "core/ascii.h"

namespace forgemeter::testforge {

bool ReceivedRequest::has_header(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (core_detail::iequals(k, name)) return true;
  return false;
}

std::string ReceivedRequest::header(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (core_detail::iequals(k, name)) return v;
  return {};
}

void GroundTruth::record(ReceivedRequest r, int remote_port) {
  std::lock_guard lock(mu_);
  ++total_;
  ++by_host_lane_[{r.host, r.lane}];
  ++by_installation_resource_[{r.installation, r.resource}];
  if (r.conditional) ++conditionals_[{r.host, r.lane}].sent;
  ++arrivals_[{r.installation, r.at.time_since_epoch().count()}];
  connections_.emplace(r.listener_port, remote_port);
  if (records_.size() < record_limit_) records_.push_back(std::move(r));
  counted_.notify_all();
}

void GroundTruth::answered(const std::string& host, const std::string& lane, int status) {
  if (status != 304) return;
  std::lock_guard lock(mu_);
  ++conditionals_[{host, lane}].not_modified;
}

std::map<std::pair<std::string, std::string>, Conditionals> GroundTruth::conditionals_by_host_and_lane() const {
  std::lock_guard lock(mu_);
  return conditionals_;
}

bool GroundTruth::await_total(std::uint64_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  return counted_.wait_for(lock, timeout, [&] { return total_ >= n; });
}

std::uint64_t GroundTruth::total() const {
  std::lock_guard lock(mu_);
  return total_;
}

std::map<std::string, std::uint64_t> GroundTruth::by_host() const {
  std::lock_guard lock(mu_);
  std::map<std::string, std::uint64_t> out;
  for (const auto& [k, n] : by_host_lane_) out[k.first] += n;
  return out;
}

std::map<std::string, std::uint64_t> GroundTruth::by_lane() const {
  std::lock_guard lock(mu_);
  std::map<std::string, std::uint64_t> out;
  for (const auto& [k, n] : by_host_lane_) out[k.second] += n;
  return out;
}

std::map<std::pair<std::string, std::string>, std::uint64_t> GroundTruth::by_host_and_lane() const {
  std::lock_guard lock(mu_);
  return by_host_lane_;
}

std::map<std::pair<std::uint64_t, std::string>, std::uint64_t> GroundTruth::by_installation_and_resource() const {
  std::lock_guard lock(mu_);
  return by_installation_resource_;
}

std::uint64_t GroundTruth::received(std::uint64_t installation, UtcMillis from, UtcMillis to) const {
  if (to <= from) return 0;
  std::lock_guard lock(mu_);
  std::uint64_t n = 0;
  const auto first = arrivals_.lower_bound({installation, from.time_since_epoch().count()});
  const auto last = arrivals_.lower_bound({installation, to.time_since_epoch().count()});
  for (auto it = first; it != last; ++it) n += it->second;
  return n;
}

std::vector<ReceivedRequest> GroundTruth::requests() const {
  std::lock_guard lock(mu_);
  return records_;
}

std::size_t GroundTruth::connections() const {
  std::lock_guard lock(mu_);
  return connections_.size();
}

void GroundTruth::clear() {
  std::lock_guard lock(mu_);
  total_ = 0;
  by_host_lane_.clear();
  by_installation_resource_.clear();
  conditionals_.clear();
  arrivals_.clear();
  records_.clear();
  connections_.clear();
}

}  // namespace forgemeter::testforge
