#include "meter/tally.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

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

// The lines' order within a host (forgemeter/lines.h): APIs by name
// ("graphql" before "rest"), lanes with `other` first, then by bytes.
std::string_view api_order(Api a) { return to_string(a); }
std::pair<bool, std::string_view> lane_order(std::string_view lane) { return {lane != "other", lane}; }

// Sorts `entries` by `key` (a tuple of an entry's fields, compared in turn).
template <class Entry, class Key>
void sort_by(std::vector<Entry>& entries, Key key) {
  std::sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) { return key(a) < key(b); });
}

}  // namespace

// One host of the lines: the spellings whose display name (display_host)
// is `name`, seen first at `first_seen`.
struct HourTally::HostGroup {
  std::string name;
  std::uint64_t first_seen;
  std::vector<const Host*> parts;
};

// The hosts by display name (two spellings of one host are one host), in the
// order they were first seen.
std::vector<HourTally::HostGroup> HourTally::host_groups() const {
  std::map<std::string, std::pair<std::uint64_t, std::vector<const Host*>>> by_display;
  for (const auto& [raw, h] : hosts_) {
    auto& [first, parts] =
        by_display.try_emplace(display_host(raw), h.first_seen, std::vector<const Host*>{}).first->second;
    first = std::min(first, h.first_seen);
    parts.push_back(&h);
  }
  std::vector<HostGroup> groups;
  groups.reserve(by_display.size());
  for (auto& [name, v] : by_display) groups.push_back({name, v.first, std::move(v.second)});
  std::sort(groups.begin(), groups.end(), [](const HostGroup& a, const HostGroup& b) {
    return std::tie(a.first_seen, a.name) < std::tie(b.first_seen, b.name);
  });
  return groups;
}

// The hour's numbers by display host; each map in the order of its line's
// entries where the line is not sorted again. The host names are views of
// the HostGroups' (or kOtherHosts).
struct HourTally::Sums {
  struct LaneKey {
    std::string_view host;
    Api api;
    std::uint64_t installation;
    Lane lane;
    auto operator<=>(const LaneKey&) const = default;
  };
  struct ResourceKey {
    std::string_view host;
    Api api;
    std::uint64_t installation;
    std::string resource;  // display form; "" = the API's default
    auto operator<=>(const ResourceKey&) const = default;
  };
  struct ApiKey {
    std::string_view host;
    Api api;
    auto operator<=>(const ApiKey&) const = default;
  };
  struct ApiLaneKey {
    std::string_view host;
    Api api;
    Lane lane;
    auto operator<=>(const ApiLaneKey&) const = default;
  };

  std::map<LaneKey, std::uint64_t> counts;
  std::map<ResourceKey, Budget> budgets;
  std::map<ApiKey, Classes> answers;
  std::map<ApiLaneKey, Classes> lane_answers;  // answers by lane too
  std::map<LaneKey, LaneSums> lanes;
  std::map<ApiKey, ClassDurations> durations;

  // Host `h`'s numbers, under the name `name`.
  void add(std::string_view name, const Host& h) {
    for (const auto& [k, n] : h.counts) counts[{name, k.api, k.installation, k.lane}] += n;
    for (const auto& [k, b] : h.budgets) add_budget({name, k.first, k.second, ""}, b);
    for (const auto& [k, b] : h.named) add_budget({name, k.api, k.installation, display_resource(k.resource)}, b);
    for (const auto& [k, classes] : h.answers) {
      auto& sum = answers[{name, k.first}];
      auto& by_lane = lane_answers[{name, k.first, k.second}];
      for (std::size_t c = 0; c < kAnswerClasses; ++c) {
        sum[c] += classes[c];
        by_lane[c] += classes[c];
      }
    }
    for (const auto& [k, s] : h.lanes) lanes[{name, k.api, k.installation, k.lane}].add(s);
    for (std::size_t a = 0; a < h.durations.size(); ++a) {
      auto& sum = durations[{name, static_cast<Api>(a)}];
      for (std::size_t c = 0; c < kTimedClasses; ++c) sum[c].add(h.durations[a][c]);
    }
  }

  // The lines, each in its order (forgemeter/lines.h); with the budget
  // line each entry's last reading, with the answers line the answers by
  // lane and the durations.
  void count_line(CountLine& line) const;
  void budget_line(HourLines& out) const;
  void answers_line(HourLines& out) const;
  void lanes_line(HourLines& out) const;

  void add_budget(ResourceKey key, const Budget& b) {
    auto [it, fresh] = budgets.try_emplace(std::move(key), b);
    if (!fresh) {
      it->second.offer(b.lowest);
      it->second.offer(b.last);
    }
  }
};

// The first `max_hosts` groups by their names, the others under kOtherHosts,
// and the hosts folded before this fold (folded_) under it too.
HourTally::Sums HourTally::sum_by_host(const std::vector<HostGroup>& groups, std::size_t max_hosts) const {
  Sums sums;
  for (std::size_t i = 0; i < groups.size(); ++i)
    for (const Host* h : groups[i].parts) sums.add(i < max_hosts ? std::string_view(groups[i].name) : kOtherHosts, *h);
  if (folded_used_) sums.add(kOtherHosts, folded_);
  return sums;
}

void HourTally::Sums::count_line(CountLine& line) const {
  for (const auto& [k, n] : counts) {
    line.entries.push_back({std::string(k.host), k.api, k.installation, std::string(k.lane.name()), n});
    line.total += n;
  }
  // By count, the highest first: its complement is the lowest.
  sort_by(line.entries, [](const CountEntry& e) {
    return std::tuple(std::numeric_limits<std::uint64_t>::max() - e.count, std::string_view(e.host), api_order(e.api),
                      lane_order(e.lane), e.installation);
  });
}

void HourTally::Sums::budget_line(HourLines& out) const {
  std::vector<std::pair<BudgetEntry, Reading>> readings;
  for (const auto& [k, b] : budgets) {
    BudgetEntry e{std::string(k.host),        k.api, k.installation, k.resource, b.lowest.remaining, b.lowest.limit,
                  time_of_day(b.lowest.seen), {}};
    if (b.lowest.reset) e.resets = time_of_day(*b.lowest.reset);
    readings.emplace_back(std::move(e), b.last);
  }
  sort_by(readings, [](const std::pair<BudgetEntry, Reading>& r) {
    const BudgetEntry& e = r.first;  // the default resource ("") first
    return std::tuple(std::string_view(e.host), api_order(e.api), e.installation, std::string_view(e.resource));
  });
  for (auto& [e, last] : readings) {
    out.budget.entries.push_back(std::move(e));
    out.last.push_back(last);
  }
}

void HourTally::Sums::answers_line(HourLines& out) const {
  for (const auto& [k, classes] : answers) out.answers.entries.push_back({std::string(k.host), k.api, classes});
  for (const auto& [k, classes] : lane_answers)
    out.lane_answers.push_back({std::string(k.host), k.api, std::string(k.lane.name()), classes});
  sort_by(out.answers.entries,
          [](const AnswersEntry& e) { return std::tuple(std::string_view(e.host), api_order(e.api)); });
  for (const auto& [k, by_class] : durations) out.durations.push_back({std::string(k.host), k.api, by_class});
}

void HourTally::Sums::lanes_line(HourLines& out) const {
  for (const auto& [k, s] : lanes)
    out.lanes.entries.push_back({std::string(k.host), k.api, k.installation, std::string(k.lane.name()), s.revalidated,
                                 s.coalesced, s.waited_ms});
  sort_by(out.lanes.entries, [](const LanesEntry& e) {
    return std::tuple(std::string_view(e.host), api_order(e.api), lane_order(e.lane), e.installation);
  });
}

HourLines HourTally::fold(std::chrono::sys_seconds hour_ending, const HourNote& note, std::size_t max_hosts) const {
  const std::vector<HostGroup> groups = host_groups();
  const Sums sums = sum_by_host(groups, max_hosts);
  HourLines out;
  out.count.hour_ending = out.budget.hour_ending = out.answers.hour_ending = out.lanes.hour_ending = hour_ending;
  out.count.note = out.budget.note = out.answers.note = out.lanes.note = note;
  sums.count_line(out.count);
  sums.budget_line(out);
  sums.answers_line(out);
  sums.lanes_line(out);
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
