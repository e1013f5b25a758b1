#include "meter/tally.h"

#include <algorithm>
#include <tuple>

#include "meter/civil.h"
#include "meter/host_text.h"

namespace forgemeter::meter {

void HourTally::Budget::offer(const Reading& r) {
  if (lower(r, lowest)) lowest = r;
  if (r.seen >= last.seen) last = r;
}

HourTally::Host& HourTally::host(std::string_view name, std::uint64_t first_seen, bool folded, bool capped) {
  auto it = folded ? hosts_.end() : hosts_.find(name);
  if (it == hosts_.end()) {
    if (folded || (capped && hosts_.size() >= max_raw_hosts_)) {
      folded_used_ = true;
      return folded_;
    }
    it = hosts_.emplace(std::string(name), Host{}).first;
  }
  it->second.first_seen = std::min(it->second.first_seen, first_seen);
  return it->second;
}

void HourTally::add_requests(std::string_view name, Api api, std::uint64_t installation, Lane lane, std::uint64_t n,
                             std::uint64_t first_seen, bool folded) {
  host(name, first_seen, folded, false).counts[CountKey{api, installation, lane}] += n;
}

void HourTally::add_reading(Host& h, const BudgetKeyView& key, const Reading& r) {
  if (key.resource.empty()) {
    auto [it, fresh] = h.budgets.try_emplace({key.api, key.installation}, Budget{r, r});
    if (!fresh) it->second.offer(r);
    return;
  }
  if (auto it = h.named.find(key); it != h.named.end()) return it->second.offer(r);
  if (h.named.size() < kMaxResources)
    h.named.emplace(BudgetKey{key.api, key.installation, std::string(key.resource)}, Budget{r, r});
}

void HourTally::add_answer(std::string_view name, Api api, Lane lane, AnswerClass c, std::uint64_t n,
                           std::uint64_t first_seen) {
  host(name, first_seen, false, true).answers[{api, lane}][static_cast<std::size_t>(c)] += n;
}

namespace {

void add_saturating(std::uint64_t& to, std::uint64_t n) {
  if (__builtin_add_overflow(to, n, &to)) to = std::numeric_limits<std::uint64_t>::max();
}

}  // namespace

void HourTally::LaneSums::add(const LaneSums& o) {
  add_saturating(revalidated, o.revalidated);
  add_saturating(coalesced, o.coalesced);
  for (std::size_t c = 0; c < kWaitCauses; ++c) add_saturating(waited_ms[c], o.waited_ms[c]);
}

void HourTally::add_saved(std::string_view name, Api api, std::uint64_t installation, Lane lane, AnswerClass c,
                          std::uint64_t first_seen) {
  Host& h = host(name, first_seen, false, true);
  h.answers[{api, lane}][static_cast<std::size_t>(c)] += 1;
  LaneSums& sums = h.lanes[CountKey{api, installation, lane}];
  add_saturating(c == AnswerClass::coalesced ? sums.coalesced : sums.revalidated, 1);
}

void HourTally::add_wait(std::string_view name, Api api, std::uint64_t installation, Lane lane, WaitCause cause,
                         std::uint64_t ms, std::uint64_t first_seen) {
  Host& h = host(name, first_seen, false, true);
  add_saturating(h.lanes[CountKey{api, installation, lane}].waited_ms[static_cast<std::size_t>(cause)], ms);
}

void HourTally::add_answer_reading(std::string_view name, Api api, Lane lane, AnswerClass c, std::uint64_t installation,
                                   std::string_view resource, const Reading* r, std::uint64_t first_seen,
                                   const Timing* t) {
  Host& h = host(name, first_seen, false, true);
  h.answers[{api, lane}][static_cast<std::size_t>(c)] += 1;
  if (r) add_reading(h, BudgetKeyView{api, installation, resource}, *r);
  if (t) {
    if (h.durations.empty()) h.durations.resize(kApis);
    h.durations[static_cast<std::size_t>(api)][static_cast<std::size_t>(c)].add(*t);
  }
}

namespace {

// Byte order of the api's name ("graphql" before "rest").
bool api_less(Api a, Api b) { return to_string(a) < to_string(b); }

// `other` first, then byte order.
bool lane_less(std::string_view a, std::string_view b) {
  if (a == b) return false;
  if (a == "other") return true;
  if (b == "other") return false;
  return a < b;
}

}  // namespace

HourLines HourTally::fold(std::chrono::sys_seconds hour_ending, const HourNote& note, std::size_t max_hosts) const {
  // Display names, merged (two spellings of one host are one host), by first seen.
  std::map<std::string, std::pair<std::uint64_t, std::vector<const Host*>>> by_display;
  for (const auto& [raw, h] : hosts_) {
    auto& [first, parts] =
        by_display.try_emplace(display_host(raw), h.first_seen, std::vector<const Host*>{}).first->second;
    first = std::min(first, h.first_seen);
    parts.push_back(&h);
  }
  std::vector<std::pair<std::uint64_t, std::string_view>> order;
  order.reserve(by_display.size());
  for (const auto& [name, v] : by_display) order.emplace_back(v.first, name);
  std::sort(order.begin(), order.end());

  std::map<std::tuple<std::string_view, Api, std::uint64_t, Lane>, std::uint64_t> counts;
  std::map<std::tuple<std::string_view, Api, std::uint64_t, std::string>, Budget> budgets;
  std::map<std::pair<std::string_view, Api>, Classes> answers;
  std::map<std::tuple<std::string_view, Api, Lane>, Classes> lane_answers;
  std::map<std::tuple<std::string_view, Api, std::uint64_t, Lane>, LaneSums> lanes;
  std::map<std::pair<std::string_view, Api>, ClassDurations> durations;
  for (std::size_t i = 0; i <= order.size(); ++i) {
    const bool last = i == order.size();  // the hosts folded before this fold: (other hosts)
    if (last && !folded_used_) break;
    const std::string_view name = !last && i < max_hosts ? order[i].second : kOtherHosts;
    const std::vector<const Host*> folded{&folded_};
    for (const Host* h : last ? folded : by_display[std::string(order[i].second)].second) {
      for (const auto& [k, n] : h->counts) counts[{name, k.api, k.installation, k.lane}] += n;
      auto merge = [&](Api api, std::uint64_t installation, std::string resource, const Budget& b) {
        auto [it, fresh] = budgets.try_emplace({name, api, installation, std::move(resource)}, b);
        if (!fresh) {
          it->second.offer(b.lowest);
          it->second.offer(b.last);
        }
      };
      for (const auto& [k, b] : h->budgets) merge(k.first, k.second, "", b);
      for (const auto& [k, b] : h->named) merge(k.api, k.installation, display_resource(k.resource), b);
      for (const auto& [k, classes] : h->answers) {
        auto& sum = answers[{name, k.first}];
        auto& by_lane = lane_answers[{name, k.first, k.second}];
        for (std::size_t c = 0; c < kAnswerClasses; ++c) {
          sum[c] += classes[c];
          by_lane[c] += classes[c];
        }
      }
      for (const auto& [k, sums] : h->lanes) lanes[{name, k.api, k.installation, k.lane}].add(sums);
      for (std::size_t a = 0; a < h->durations.size(); ++a) {
        auto& sum = durations[{name, static_cast<Api>(a)}];
        for (std::size_t c = 0; c < kTimedClasses; ++c) sum[c].add(h->durations[a][c]);
      }
    }
  }

  HourLines out;
  out.count.hour_ending = out.budget.hour_ending = out.answers.hour_ending = out.lanes.hour_ending = hour_ending;
  out.count.note = out.budget.note = out.answers.note = out.lanes.note = note;
  for (const auto& [k, n] : counts) {
    const auto& [host, api, installation, lane] = k;
    out.count.entries.push_back({std::string(host), api, installation, std::string(lane.name()), n});
    out.count.total += n;
  }
  std::sort(out.count.entries.begin(), out.count.entries.end(), [](const CountEntry& a, const CountEntry& b) {
    if (a.count != b.count) return a.count > b.count;
    if (a.host != b.host) return a.host < b.host;
    if (a.api != b.api) return api_less(a.api, b.api);
    if (a.lane != b.lane) return lane_less(a.lane, b.lane);
    return a.installation < b.installation;
  });

  std::vector<std::pair<BudgetEntry, Reading>> readings;
  for (const auto& [k, b] : budgets) {
    const auto& [host, api, installation, resource] = k;
    BudgetEntry e{std::string(host),          api, installation, resource, b.lowest.remaining, b.lowest.limit,
                  time_of_day(b.lowest.seen), {}};
    if (b.lowest.reset) e.resets = time_of_day(*b.lowest.reset);
    readings.emplace_back(std::move(e), b.last);
  }
  std::sort(readings.begin(), readings.end(), [](const auto& x, const auto& y) {
    const BudgetEntry &a = x.first, &b = y.first;
    if (a.host != b.host) return a.host < b.host;
    if (a.api != b.api) return api_less(a.api, b.api);
    if (a.installation != b.installation) return a.installation < b.installation;
    return a.resource < b.resource;  // the default ("") first
  });
  for (auto& [e, last] : readings) {
    out.budget.entries.push_back(std::move(e));
    out.last.push_back(last);
  }

  for (const auto& [k, classes] : answers) out.answers.entries.push_back({std::string(k.first), k.second, classes});
  for (const auto& [k, classes] : lane_answers) {
    const auto& [host, api, lane] = k;
    out.lane_answers.push_back({std::string(host), api, std::string(lane.name()), classes});
  }
  std::sort(out.answers.entries.begin(), out.answers.entries.end(), [](const AnswersEntry& a, const AnswersEntry& b) {
    if (a.host != b.host) return a.host < b.host;
    return api_less(a.api, b.api);
  });

  for (const auto& [k, sums] : lanes) {
    const auto& [host, api, installation, lane] = k;
    out.lanes.entries.push_back({std::string(host), api, installation, std::string(lane.name()), sums.revalidated,
                                 sums.coalesced, sums.waited_ms});
  }
  for (const auto& [k, by_class] : durations) out.durations.push_back({std::string(k.first), k.second, by_class});

  std::sort(out.lanes.entries.begin(), out.lanes.entries.end(), [](const LanesEntry& a, const LanesEntry& b) {
    if (a.host != b.host) return a.host < b.host;
    if (a.api != b.api) return api_less(a.api, b.api);
    if (a.lane != b.lane) return lane_less(a.lane, b.lane);
    return a.installation < b.installation;
  });
  return out;
}

std::vector<MeterLine> HourLines::lines() const {
  std::vector<MeterLine> out;
  if (!count.entries.empty()) out.emplace_back(count);
  if (!budget.entries.empty()) out.emplace_back(budget);
  if (!lanes.entries.empty()) out.emplace_back(lanes);
  if (!answers.entries.empty()) out.emplace_back(answers);
  return out;
}

}  // namespace forgemeter::meter
