#include "meter/prometheus.h"

#include <fmt/format.h>

#include <limits>

#include "meter/window.h"

namespace forgemeter::meter {

const std::string& Cumulative::name_for(const std::string& host) {
  static const std::string other(kOtherHosts);
  if (named_.contains(host)) return host;
  if (host == kOtherHosts || named_.size() >= max_hosts_) return other;
  return *named_.insert(host).first;
}

std::uint64_t Cumulative::installation_for(std::uint64_t installation) {
  if (installation == 0 || installations_.contains(installation)) return installation;
  if (installations_.size() >= max_installations_) return kOtherInstallation;
  installations_.insert(installation);
  return installation;
}

namespace {

void add_saturating(std::uint64_t& to, std::uint64_t n) {
  if (__builtin_add_overflow(to, n, &to)) to = std::numeric_limits<std::uint64_t>::max();
}

}  // namespace

void Cumulative::add(const HourLines& hour) {
  for (const auto& e : hour.count.entries)
    requests_[{name_for(e.host), e.api, installation_for(e.installation), e.lane}] += e.count;
  for (const auto& e : hour.lane_answers) {
    auto& sum = answers_[{name_for(e.host), e.api, e.lane}];
    for (std::size_t c = 0; c < kAnswerClasses; ++c) sum[c] += e.counts[c];
  }
  for (const auto& e : hour.lanes.entries) {
    auto& sum = lanes_[{name_for(e.host), e.api, e.lane}];
    add_saturating(sum.revalidated, e.revalidated);
    add_saturating(sum.coalesced, e.coalesced);
    for (std::size_t c = 0; c < kWaitCauses; ++c) add_saturating(sum.waited_ms[c], e.waited_ms[c]);
  }
  for (const auto& e : hour.durations) {
    auto& sum = durations_[{name_for(e.host), e.api}];
    for (std::size_t c = 0; c < kTimedClasses; ++c) sum[c].add(e.by_class[c]);
  }
  for (std::size_t i = 0; i < hour.budget.entries.size(); ++i) {
    const auto& e = hour.budget.entries[i];
    const std::string resource = e.resource.empty() ? std::string(default_resource(e.api)) : e.resource;
    auto [it, fresh] = gauges_.try_emplace({name_for(e.host), e.api, installation_for(e.installation), resource},
                                           Gauge{{}, e.remaining});
    it->second.last = hour.last[i];
    if (!fresh) it->second.lowest = std::min(it->second.lowest, e.remaining);
  }
}

namespace {

MetricFamilySnapshot& family(MeterMetrics& m, std::string name, MetricType type, std::string help) {
  m.families.push_back({std::move(name), std::move(help), type, false, {}});
  return m.families.back();
}

std::string api_text(Api api) { return std::string(to_string(api)); }

std::string installation_text(std::uint64_t installation) {
  return installation == Cumulative::kOtherInstallation ? "other" : std::to_string(installation);
}

}  // namespace

namespace {

// When the hourly budget of `r` runs out at its window's rate (meter/window.h,
// the report's model), while that is before its reset and the reset is after
// `now`; a reading of 0 ran out when it was seen.
std::optional<std::chrono::sys_seconds> runs_out_at(const Reading& r, std::string_view resource, UtcMillis now) {
  using std::chrono::floor;
  using std::chrono::seconds;
  if ((resource != "core" && resource != "graphql") || !r.limit || !r.reset || *r.reset <= now) return std::nullopt;
  const auto at = floor<seconds>(r.seen);
  if (at >= *r.reset || at <= *r.reset - kHourlyWindow) return std::nullopt;  // not this hourly window
  if (r.remaining == 0) return at;
  return project_window(r.remaining, *r.limit, at, *r.reset).runs_out_at;
}

}  // namespace

// The latest reading's limit and reset (Unix seconds), where it said them,
// and when its hourly budget runs out, while that is before its reset.
void Cumulative::add_limits(MeterMetrics& m, UtcMillis now) const {
  family(m, "forgemeter_rate_limit_limit", MetricType::gauge,
         "Limit of the latest reading, by host, API, installation and resource.");
  family(m, "forgemeter_rate_limit_reset_timestamp_seconds", MetricType::gauge,
         "Reset of the latest reading as Unix time, by host, API, installation and resource.");
  family(m, "forgemeter_rate_limit_exhaustion_timestamp_seconds", MetricType::gauge,
         "When an hourly budget runs out at the rate seen so far in its window, as Unix time; only while that is "
         "before its reset.");
  auto& limit = m.families[m.families.size() - 3];  // all made first: a push_back moves the families
  auto& reset = m.families[m.families.size() - 2];
  auto& exhaustion = m.families.back();
  for (const auto& [k, g] : gauges_) {
    const auto& [host, api, installation, resource] = k;
    std::vector<std::pair<std::string, std::string>> labels{{"host", host},
                                                            {"api", api_text(api)},
                                                            {"installation", installation_text(installation)},
                                                            {"resource", resource}};
    if (g.last.limit) limit.samples.push_back({labels, *g.last.limit});
    if (g.last.reset && g.last.reset->time_since_epoch().count() >= 0)
      reset.samples.push_back({labels, static_cast<std::uint64_t>(g.last.reset->time_since_epoch().count())});
    if (const auto out = runs_out_at(g.last, resource, now); out && out->time_since_epoch().count() >= 0)
      exhaustion.samples.push_back({std::move(labels), static_cast<std::uint64_t>(out->time_since_epoch().count())});
  }
}

// Each host, API and class with an answered hop timed: cumulative buckets.
void Cumulative::add_durations(MeterMetrics& m) const {
  if (!durations_on_) return;
  auto& f = family(m, "forgemeter_request_duration_seconds", MetricType::histogram,
                   "Answered hops since start, sent to answered, by host, API and class (2xx 304 3xx limited "
                   "secondary 4xx 5xx).");
  f.bounds.assign(kDurationBoundsMs.begin(), kDurationBoundsMs.end());
  for (const auto& [k, by_class] : durations_) {
    for (std::size_t c = 0; c < kTimedClasses; ++c) {
      const Durations& d = by_class[c];
      MetricSample s{{{"host", k.first},
                      {"api", api_text(k.second)},
                      {"class", std::string(to_string(static_cast<AnswerClass>(c)))}},
                     0};
      s.buckets.reserve(kDurationBounds);
      for (std::size_t b = 0; b < kDurationBounds; ++b) s.buckets.push_back(s.value += d.counts[b]);
      s.value += d.counts[kDurationBounds];
      if (s.value == 0) continue;
      s.sum = d.sum_micros;
      f.samples.push_back(std::move(s));
    }
  }
}

void Cumulative::add_requests(MeterMetrics& m) const {
  auto& requests = family(m, "forgemeter_requests_total", MetricType::counter,
                          "Requests put on the wire since start, by host, API, installation (0 = none) and lane.");
  for (const auto& [k, n] : requests_) {
    const auto& [host, api, installation, lane] = k;
    requests.samples.push_back(
        {{{"host", host}, {"api", api_text(api)}, {"installation", installation_text(installation)}, {"lane", lane}},
         n});
  }
}

void Cumulative::add_answers(MeterMetrics& m) const {
  auto& answers =
      family(m, "forgemeter_answers_total", MetricType::counter,
             "Answers since start, by host, API, lane and class (2xx 304 3xx limited secondary 4xx 5xx none "
             "refused coalesced revalidated).");
  for (const auto& [k, classes] : answers_) {
    for (std::size_t c = 0; c < kAnswerClasses; ++c) {
      const auto cls = static_cast<AnswerClass>(c);
      // limited and secondary from 0: increase() cannot see a counter's first increment
      if (classes[c] == 0 && cls != AnswerClass::limited && cls != AnswerClass::secondary) continue;
      const auto& [host, api, lane] = k;
      answers.samples.push_back(
          {{{"host", host}, {"api", api_text(api)}, {"lane", lane}, {"class", std::string(to_string(cls))}},
           classes[c]});
    }
  }
}

void Cumulative::add_saved(MeterMetrics& m) const {
  auto& saved = family(m, "forgemeter_cache_saved_total", MetricType::counter,
                       "Requests a Transport cache spared since start, by host, API, lane and kind (revalidated "
                       "coalesced).");
  for (const auto& [k, sums] : lanes_) {
    const auto& [host, api, lane] = k;
    for (const auto& [kind, n] : {std::pair{"revalidated", sums.revalidated}, std::pair{"coalesced", sums.coalesced}}) {
      if (n == 0) continue;
      saved.samples.push_back({{{"host", host}, {"api", api_text(api)}, {"lane", lane}, {"kind", kind}}, n});
    }
  }
}

void Cumulative::add_waits(MeterMetrics& m) const {
  auto& waited = family(m, "forgemeter_wait_seconds_total", MetricType::counter,
                        "Time requests waited before the wire since start, by host, API, lane and cause (pause pacing "
                        "secondary).");
  waited.thousandths = true;
  constexpr std::string_view kCauses[kWaitCauses] = {"pause", "pacing", "secondary"};
  for (const auto& [k, sums] : lanes_) {
    const auto& [host, api, lane] = k;
    for (std::size_t c = 0; c < kWaitCauses; ++c) {
      if (sums.waited_ms[c] == 0) continue;
      waited.samples.push_back(
          {{{"host", host}, {"api", api_text(api)}, {"lane", lane}, {"cause", std::string(kCauses[c])}},
           sums.waited_ms[c]});
    }
  }
}

void Cumulative::add_remaining(MeterMetrics& m) const {
  for (const bool lowest : {false, true}) {
    auto& f = family(m, lowest ? "forgemeter_rate_limit_lowest_remaining" : "forgemeter_rate_limit_remaining",
                     MetricType::gauge,
                     lowest ? "Lowest remaining budget read since start, by host, API, installation and resource."
                            : "Remaining budget of the latest reading, by host, API, installation and resource.");
    for (const auto& [k, g] : gauges_) {
      const auto& [host, api, installation, resource] = k;
      f.samples.push_back({{{"host", host},
                            {"api", api_text(api)},
                            {"installation", installation_text(installation)},
                            {"resource", resource}},
                           lowest ? g.lowest : g.last.remaining});
    }
  }
}

MeterMetrics Cumulative::metrics(UtcMillis now) const {
  MeterMetrics m;
  add_requests(m);
  add_answers(m);
  add_saved(m);
  add_waits(m);
  add_durations(m);
  add_remaining(m);
  add_limits(m, now);
  return m;
}

namespace {

// A label value, escaped as the exposition format asks: \ " and newline.
std::string label(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

}  // namespace

namespace {

// A sample's name and labels, `extra` (e.g. `le="0.05"`) last: `name{a="x",le="0.05"}`.
void series(std::string& out, std::string_view name, const MetricSample& s, std::string_view extra = {}) {
  auto to = std::back_inserter(out);
  out += name;
  char sep = '{';
  for (const auto& [label_name, value] : s.labels) {
    fmt::format_to(to, "{}{}=\"{}\"", sep, label_name, label(value));
    sep = ',';
  }
  if (!extra.empty()) {
    out += sep;
    out += extra;
    sep = ',';
  }
  if (sep == ',') out += '}';
}

// Thousandths as a decimal without trailing zeros: 50 -> 0.05, 2500 -> 2.5, 30000 -> 30.
std::string decimal_thousandths(std::uint64_t v) {
  std::string out = std::to_string(v / 1000);
  if (const auto frac = v % 1000; frac != 0) {
    std::string digits = fmt::format("{:03}", frac);
    while (digits.back() == '0') digits.pop_back();
    out += '.';
    out += digits;
  }
  return out;
}

void histogram(std::string& out, const MetricFamilySnapshot& f, const MetricSample& s) {
  auto to = std::back_inserter(out);
  const std::string bucket = f.name + "_bucket";
  for (std::size_t b = 0; b < f.bounds.size() && b < s.buckets.size(); ++b) {
    series(out, bucket, s, "le=\"" + decimal_thousandths(f.bounds[b]) + "\"");
    fmt::format_to(to, " {}\n", s.buckets[b]);
  }
  series(out, bucket, s, "le=\"+Inf\"");
  fmt::format_to(to, " {}\n", s.value);
  series(out, f.name + "_sum", s);
  fmt::format_to(to, " {}.{:06}\n", s.sum / 1'000'000, s.sum % 1'000'000);
  series(out, f.name + "_count", s);
  fmt::format_to(to, " {}\n", s.value);
}

std::string_view type_text(MetricType t) {
  switch (t) {
    case MetricType::counter: return "counter";
    case MetricType::gauge: return "gauge";
    case MetricType::histogram: return "histogram";
  }
  return "untyped";
}

}  // namespace

std::string exposition(const MeterMetrics& metrics) {
  std::string out;
  auto to = std::back_inserter(out);
  for (const auto& f : metrics.families) {
    fmt::format_to(to, "# HELP {} {}\n# TYPE {} {}\n", f.name, f.help, f.name, type_text(f.type));
    for (const auto& s : f.samples) {
      if (f.type == MetricType::histogram) {
        histogram(out, f, s);
        continue;
      }
      series(out, f.name, s);
      if (f.thousandths)
        fmt::format_to(to, " {}.{:03}\n", s.value / 1000, s.value % 1000);
      else
        fmt::format_to(to, " {}\n", s.value);
    }
  }
  return out;
}

}  // namespace forgemeter::meter
