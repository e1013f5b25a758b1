#include "transport/admission/secondary_limits.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <stdexcept>

namespace forgemeter::transport_detail {

namespace {

// Idle installations are kept while the map holds no more than this.
constexpr std::size_t kKeepIdle = 64;

bool is_read(std::string_view method) { return method == "GET" || method == "HEAD" || method == "OPTIONS"; }

// Skips JSON whitespace and the escaped whitespace a query string may open with.
std::string_view skip_space(std::string_view s) {
  for (;;) {
    if (!s.empty() && (s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\r')) {
      s.remove_prefix(1);
    } else if (s.size() >= 2 && s[0] == '\\' && (s[1] == 'n' || s[1] == 't' || s[1] == 'r')) {
      s.remove_prefix(2);
    } else {
      return s;
    }
  }
}

}  // namespace

std::optional<std::string> check(const SecondaryLimitOptions& o) {
  if (o.read_points == 0 || o.write_points == 0) return "read_points and write_points must be >= 1";
  const unsigned most = std::max(o.read_points, o.write_points);
  if ((o.rest_points_per_minute != 0 && o.rest_points_per_minute < most) ||
      (o.graphql_points_per_minute != 0 && o.graphql_points_per_minute < most))
    return "rest_points_per_minute and graphql_points_per_minute must be 0 (off) or at least one request's points";
  if (o.write_spacing < Duration::zero()) return "write_spacing must not be negative";
  if (o.in_flight_recheck <= Duration::zero()) return "in_flight_recheck must be above 0";
  if (o.minute <= Duration::zero() || o.hour <= Duration::zero()) return "minute and hour must be above 0";
  return std::nullopt;
}

bool graphql_mutation(std::string_view body) noexcept {
  const auto key = body.find("\"query\"");
  if (key == std::string_view::npos) return false;
  std::string_view rest = skip_space(body.substr(key + 7));
  if (rest.empty() || rest[0] != ':') return false;
  rest = skip_space(rest.substr(1));
  if (rest.empty() || rest[0] != '"') return false;
  rest = skip_space(rest.substr(1));
  return rest.substr(0, 8) == "mutation";
}

std::uint64_t origin_id(std::string_view origin) noexcept { return std::hash<std::string_view>{}(origin); }

RequestKind kind_of(std::string_view method, Api api, std::string_view body) {
  if (api == Api::graphql) {
    const bool mutation = graphql_mutation(body);
    return {.api = api, .write = mutation, .creates_content = mutation};
  }
  const bool creates = method == "POST" || method == "PATCH" || method == "PUT";
  return {.api = api, .write = !is_read(method), .creates_content = creates};
}

SecondaryLimits::SecondaryLimits(const SecondaryLimitOptions& options, const Clock& clock)
    : options_(options), clock_(clock) {
  if (auto why = check(options_)) throw std::invalid_argument("Transport: rate_limits.secondary_limits." + *why);
}

// The latest instant any limit the request would break asks it to wait for
// (all must hold at once); go when none would break.
SecondaryVerdict SecondaryLimits::held(Load& load, const RequestKind& k, SteadyTime now) const {
  SecondaryVerdict v;
  auto hold = [&](SteadyTime until, std::string_view limit) {
    if (until <= now || (!v.go && until <= v.retry_at)) return;
    v = {false, until, limit};
  };
  const SecondaryLimitOptions& o = options_;
  if (o.max_in_flight != 0 && load.in_flight >= o.max_in_flight) hold(now + o.in_flight_recheck, "max_in_flight");
  const unsigned points = k.write ? o.write_points : o.read_points;
  if (k.api == Api::rest && o.rest_points_per_minute != 0)
    hold(load.rest_points.earliest(now, points, o.rest_points_per_minute), "rest_points_per_minute");
  if (k.api == Api::graphql && o.graphql_points_per_minute != 0)
    hold(load.graphql_points.earliest(now, points, o.graphql_points_per_minute), "graphql_points_per_minute");
  if (k.creates_content) {
    if (o.writes_per_minute != 0) hold(load.writes_minute.earliest(now, 1, o.writes_per_minute), "writes_per_minute");
    if (o.writes_per_hour != 0) hold(load.writes_hour.earliest(now, 1, o.writes_per_hour), "writes_per_hour");
    if (o.write_spacing > Duration::zero() && load.last_write)
      hold(*load.last_write + o.write_spacing, "write_spacing");
  }
  return v;
}

SecondaryVerdict SecondaryLimits::admit(std::uint64_t installation, const RequestKind& k, std::uint64_t origin) {
  if (installation == 0) return {};
  const SteadyTime now = clock_.steady_now();
  core_detail::MutexLock lock(mu_);
  if (loads_.size() > std::max(kKeepIdle, look_past_) || (loads_.size() > kKeepIdle && now >= look_at_))
    forget_idle(now);
  const auto [it, fresh] = loads_.try_emplace({installation, origin}, options_);
  Load& load = it->second;
  SecondaryVerdict v = held(load, k, now);
  if (!v.go) return v;
  v.fresh = fresh;
  ++load.in_flight;
  // A window whose limit is off is not kept: nothing would ever empty it.
  const SecondaryLimitOptions& o = options_;
  const unsigned points = k.write ? o.write_points : o.read_points;
  if (k.api == Api::graphql && o.graphql_points_per_minute != 0) load.graphql_points.add(now, points);
  if (k.api == Api::rest && o.rest_points_per_minute != 0) load.rest_points.add(now, points);
  if (k.creates_content) {
    if (o.writes_per_minute != 0) load.writes_minute.add(now, 1);
    if (o.writes_per_hour != 0) load.writes_hour.add(now, 1);
    load.last_write = now;
  }
  return v;
}

void SecondaryLimits::release(std::uint64_t installation, std::uint64_t origin) {
  if (installation == 0) return;
  core_detail::MutexLock lock(mu_);
  auto it = loads_.find({installation, origin});
  if (it != loads_.end() && it->second.in_flight > 0) --it->second.in_flight;
}

std::vector<std::pair<std::uint64_t, unsigned>> SecondaryLimits::in_flight() const {
  std::vector<std::pair<std::uint64_t, unsigned>> out;
  core_detail::MutexLock lock(mu_);
  for (const auto& [key, load] : loads_)
    if (load.in_flight != 0) out.emplace_back(key.first, load.in_flight);
  return out;
}

void SecondaryLimits::forget_idle(SteadyTime now) {
  for (auto it = loads_.begin(); it != loads_.end();) {
    Load& l = it->second;
    const bool spaced = !l.last_write || *l.last_write + options_.write_spacing <= now;
    const bool idle = l.in_flight == 0 && spaced && l.rest_points.empty(now) && l.graphql_points.empty(now) &&
                      l.writes_minute.empty(now) && l.writes_hour.empty(now);
    it = idle ? loads_.erase(it) : std::next(it);
  }
  look_past_ = 2 * loads_.size();
  look_at_ = now + options_.minute;
}

}  // namespace forgemeter::transport_detail
