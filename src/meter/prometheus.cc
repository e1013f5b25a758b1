#include "meter/prometheus.h"

#include <fmt/format.h>

#include <limits>

namespace forgemeter::meter {

const std::string& Cumulative::name_for(const std::string& host) {
  static const std::string other(kOtherHosts);
  if (named_.contains(host)) return host;
  if (host == kOtherHosts || named_.size() >= max_hosts_) return other;
  return *named_.insert(host).first;
}

namespace {

void add_saturating(std::uint64_t& to, std::uint64_t n) {
  if (__builtin_add_overflow(to, n, &to)) to = std::numeric_limits<std::uint64_t>::max();
}

}  // namespace

void Cumulative::add(const HourLines& hour) {
  for (const auto& e : hour.count.entries) requests_[{name_for(e.host), e.api, e.installation, e.lane}] += e.count;
  for (const auto& e : hour.answers.entries) {
    auto& sum = answers_[{name_for(e.host), e.api}];
    for (std::size_t c = 0; c < kAnswerClasses; ++c) sum[c] += e.counts[c];
  }
  for (const auto& e : hour.lanes.entries) {
    auto& sum = lanes_[{name_for(e.host), e.api, e.lane}];
    add_saturating(sum.revalidated, e.revalidated);
    add_saturating(sum.coalesced, e.coalesced);
    for (std::size_t c = 0; c < kWaitCauses; ++c) add_saturating(sum.waited_ms[c], e.waited_ms[c]);
  }
  for (std::size_t i = 0; i < hour.budget.entries.size(); ++i) {
    const auto& e = hour.budget.entries[i];
    const std::string resource = e.resource.empty() ? std::string(default_resource(e.api)) : e.resource;
    auto [it, fresh] = gauges_.try_emplace({name_for(e.host), e.api, e.installation, resource}, Gauge{0, e.remaining});
    it->second.last = hour.last_remaining[i];
    if (!fresh) it->second.lowest = std::min(it->second.lowest, e.remaining);
  }
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

void header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

std::string Cumulative::render() const {
  std::string out;
  header(out, "forgemeter_requests_total", "counter",
         "Requests put on the wire since start, by host, API, installation (0 = none) and lane.");
  for (const auto& [k, n] : requests_) {
    const auto& [host, api, installation, lane] = k;
    fmt::format_to(std::back_inserter(out),
                   "forgemeter_requests_total{{host=\"{}\",api=\"{}\",installation=\"{}\",lane=\"{}\"}} {}\n",
                   label(host), to_string(api), installation, label(lane), n);
  }
  header(out, "forgemeter_answers_total", "counter",
         "Answers since start, by host, API and class (2xx 304 3xx limited secondary 4xx 5xx none refused coalesced "
         "revalidated).");
  for (const auto& [k, classes] : answers_) {
    for (std::size_t c = 0; c < kAnswerClasses; ++c) {
      if (classes[c] == 0) continue;
      fmt::format_to(std::back_inserter(out), "forgemeter_answers_total{{host=\"{}\",api=\"{}\",class=\"{}\"}} {}\n",
                     label(k.first), to_string(k.second), to_string(static_cast<AnswerClass>(c)), classes[c]);
    }
  }
  header(out, "forgemeter_cache_saved_total", "counter",
         "Requests a Transport cache spared since start, by host, API, lane and kind (revalidated coalesced).");
  for (const auto& [k, sums] : lanes_) {
    const auto& [host, api, lane] = k;
    for (const auto& [kind, n] : {std::pair{"revalidated", sums.revalidated}, std::pair{"coalesced", sums.coalesced}}) {
      if (n == 0) continue;
      fmt::format_to(std::back_inserter(out),
                     "forgemeter_cache_saved_total{{host=\"{}\",api=\"{}\",lane=\"{}\",kind=\"{}\"}} {}\n", label(host),
                     to_string(api), label(lane), kind, n);
    }
  }
  header(out, "forgemeter_wait_seconds_total", "counter",
         "Time requests waited before the wire since start, by host, API, lane and cause (pause pacing secondary).");
  constexpr std::string_view kCauses[kWaitCauses] = {"pause", "pacing", "secondary"};
  for (const auto& [k, sums] : lanes_) {
    const auto& [host, api, lane] = k;
    for (std::size_t c = 0; c < kWaitCauses; ++c) {
      const std::uint64_t ms = sums.waited_ms[c];
      if (ms == 0) continue;
      fmt::format_to(std::back_inserter(out),
                     "forgemeter_wait_seconds_total{{host=\"{}\",api=\"{}\",lane=\"{}\",cause=\"{}\"}} {}.{:03}\n",
                     label(host), to_string(api), label(lane), kCauses[c], ms / 1000, ms % 1000);
    }
  }
  for (const bool lowest : {false, true}) {
    const std::string_view name = lowest ? "forgemeter_rate_limit_lowest_remaining" : "forgemeter_rate_limit_remaining";
    header(out, name, "gauge",
           lowest ? "Lowest remaining budget read since start, by host, API, installation and resource."
                  : "Remaining budget of the latest reading, by host, API, installation and resource.");
    for (const auto& [k, g] : gauges_) {
      const auto& [host, api, installation, resource] = k;
      fmt::format_to(std::back_inserter(out), "{}{{host=\"{}\",api=\"{}\",installation=\"{}\",resource=\"{}\"}} {}\n",
                     name, label(host), to_string(api), installation, label(resource), lowest ? g.lowest : g.last);
    }
  }
  return out;
}

}  // namespace forgemeter::meter
