#include "report/fleet.h"

#include <algorithm>
#include <exception>
#include <system_error>
#include <thread>

namespace forgemeter::report {

namespace {

void insert_sorted(std::vector<std::uint32_t>& v, std::uint32_t x) {
  auto it = std::lower_bound(v.begin(), v.end(), x);
  if (it == v.end() || *it != x) v.insert(it, x);
}

// Whether reading (remaining, at) is lower than (than, than_at): lower
// remaining first, then the earlier reading.
bool lower(std::uint64_t remaining, Instant at, std::uint64_t than, Instant than_at) {
  return remaining != than ? remaining < than : at < than_at;
}

std::optional<Instant> earliest(const FlatMap<BudgetKey, BudgetView>& budgets,
                                std::optional<Instant> BudgetView::*field) {
  std::optional<Instant> first;
  for (const auto& [key, b] : budgets)
    if (b.*field && (!first || *(b.*field) < *first)) first = b.*field;
  return first;
}

}  // namespace

bool LaneOrder::operator()(const std::string& a, const std::string& b) const {
  bool ao = a == "other", bo = b == "other";
  if (ao != bo) return ao;
  return a < b;
}

Instant reset_after(Instant at, TimeOfDay resets) {
  using namespace std::chrono;
  const auto day = duration_cast<seconds>(days(1));
  auto ahead = (resets - (at - floor<days>(at))) % day;
  if (ahead < seconds(0)) ahead += day;
  return at + ahead;
}

Instant instant_in_hour(Instant hour_ending, TimeOfDay at) {
  using namespace std::chrono;
  Instant start = hour_ending - hours(1);
  Instant t = floor<days>(start) + at;
  if (t > hour_ending + hours(12)) t -= days(1);
  if (t < start - hours(12)) t += days(1);
  return t;
}

std::uint64_t FleetHour::graphql_requests() const {
  std::uint64_t n = 0;
  for (const auto& [lane, count] : graphql_lanes) n += count;
  return n;
}

bool FleetHour::exhausted() const {
  return std::any_of(budgets.begin(), budgets.end(), [](const auto& kv) { return kv.second.exhausted(); });
}

std::optional<Instant> FleetHour::first_exhausted_at() const { return earliest(budgets, &BudgetView::exhausted_at); }

std::optional<Instant> FleetHour::first_limited_at() const { return earliest(budgets, &BudgetView::limited_at); }

const BudgetView* FleetHour::lowest_budget() const {
  const BudgetView* best = nullptr;
  for (const auto& [key, b] : budgets)
    if (b.hourly() && b.lowest && (best == nullptr || lower(*b.lowest, b.lowest_at, *best->lowest, best->lowest_at)))
      best = &b;
  return best;
}

std::uint64_t Fleet::PairIds::id(std::uint64_t a, std::uint64_t b) {
  auto [it, fresh] = ids_.try_emplace({a, b}, pairs_.size());
  if (fresh) pairs_.emplace_back(a, b);
  return it->second;
}

Fleet::Hour& Fleet::hour(Instant ending) {
  if (last_slot_ < hours_.size() && hours_[last_slot_].ending == ending) return hours_[last_slot_];
  auto [it, fresh] = hour_slots_.try_emplace(ending.time_since_epoch().count(), hours_.size());
  if (fresh) hours_.emplace_back().ending = ending;
  last_slot_ = it->second;
  return hours_[last_slot_];
}

template <class Line>
void Fleet::add(std::uint32_t source, const Line& line) {
  Hour& h = hour(Instant(line.hour_ending));
  insert_sorted(h.sources, source);
  if (!line.note.whole()) insert_sorted(h.partial_sources, source);
  ++h.lines;
  ++lines_;
  add_entries(h, source, line);
}

// `to += n`, noting the hour whose sum would pass 2^64-1 (an impossible log).
void Fleet::add_sum(const Hour& h, std::uint64_t& to, std::uint64_t n) {
  if (__builtin_add_overflow(to, n, &to)) [[unlikely]]
    if (!overflowed_ || h.ending < *overflowed_) overflowed_ = h.ending;
}

template <class Text>
void Fleet::add_entries(Hour& h, std::uint32_t source, const BasicCountLine<Text>& line) {
  for (const auto& e : line.entries) {
    const std::uint64_t ha = host_api(e.host, e.api);
    // Lanes, hosts and installations split the hour's requests: none passes
    // 2^64-1 unless the hour's total does.
    add_sum(h, h.requests, e.count);
    h.source_lanes[source_lane(source, lanes_.id(e.lane), e.api)] += e.count;
    h.hosts[ha] += e.count;
    h.installations[e.installation] += e.count;
    if (e.installation != 0) h.budgets[budget_key(ha, e.installation)].requests += e.count;
  }
}

void Fleet::Budget::merge(const Budget& later, std::uint32_t source) {
  requests += later.requests;
  revalidated += later.revalidated;
  // A full tie keeps ours (the earlier line's).
  if (later.lowest && (!lowest || lower(*later.lowest, later.lowest_at, *lowest, lowest_at))) {
    lowest = later.lowest;
    lowest_at = later.lowest_at;
    lowest_source = source;
    lowest_resets = later.lowest_resets;
  }
  if (later.limit && (!limit || *later.limit > *limit)) limit = later.limit;
  if (later.zero_at && (!zero_at || *later.zero_at < *zero_at)) zero_at = later.zero_at;
}

template <class Text>
void Fleet::add_entries(Hour& h, std::uint32_t source, const BasicBudgetLine<Text>& line) {
  for (const auto& e : line.entries) {
    const Instant at = instant_in_hour(h.ending, e.at);
    Budget reading;
    reading.lowest = e.remaining;
    reading.lowest_at = at;
    reading.limit = e.limit;
    if (e.resets) reading.lowest_resets = reset_after(at, *e.resets);
    if (e.remaining == 0) reading.zero_at = at;
    const std::uint64_t key = budget_key(host_api(e.host, e.api), e.installation);
    // A line may name the default resource (`core` on REST): the same budget as none.
    const bool named = !e.resource.empty() && e.resource != default_resource(e.api);
    Budget& b = named ? h.resources[resource_key(key, resources_.id(e.resource))] : h.budgets[key];
    b.merge(reading, source);
  }
}

template <class Text>
void Fleet::add_entries(Hour& h, std::uint32_t /*source*/, const BasicAnswersLine<Text>& line) {
  for (const auto& e : line.entries) {
    AnswerCounts& c = h.answers[host_api(e.host, e.api)];
    for (std::size_t i = 0; i < kAnswerClasses; ++i) add_sum(h, c[i], e.counts[i]);
  }
}

void Fleet::add_economy(const Hour& h, LaneEconomy& to, const LaneEconomy& n) {
  add_sum(h, to.revalidated, n.revalidated);
  add_sum(h, to.coalesced, n.coalesced);
  for (std::size_t c = 0; c < kWaitCauses; ++c) add_sum(h, to.waited_ms[c], n.waited_ms[c]);
}

template <class Text>
void Fleet::add_entries(Hour& h, std::uint32_t /*source*/, const BasicLanesLine<Text>& line) {
  for (const auto& e : line.entries) {
    const std::uint64_t ha = host_api(e.host, e.api);
    add_economy(h, h.economy[economy_key(ha, lanes_.id(e.lane))], LaneEconomy{e.revalidated, e.coalesced, e.waited_ms});
    // A revalidation's 304 was a request on the wire that the forge charged nothing.
    if (e.installation != 0 && e.revalidated != 0) {
      Budget& b = h.budgets[budget_key(ha, e.installation)];
      add_sum(h, b.revalidated, e.revalidated);
    }
  }
}

void Fleet::absorb(const Fleet& later) {
  // Later's ids in this fleet's terms, each name looked up once.
  auto remap = [](Interner& to, const Interner& from) {
    std::vector<std::uint32_t> ids(from.names().size());
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = to.id(from.name(static_cast<std::uint32_t>(i)));
    return ids;
  };
  const auto source = remap(sources_, later.sources_), lane = remap(lanes_, later.lanes_),
             resource = remap(resources_, later.resources_);
  auto host = [&](std::uint64_t id) {
    HostApi k = later.host_api_of(id);
    return host_api(k.host, k.api);
  };
  auto budget = [&](std::uint64_t key) {
    const HostInstallation k = later.budget_pair(key);
    return budget_key(host(k.host_api), k.installation);
  };
  for (const Hour& from : later.hours_) {
    Hour& h = hour(from.ending);
    add_sum(h, h.requests, from.requests);
    h.lines += from.lines;
    for (auto s : from.sources) insert_sorted(h.sources, source[s]);
    for (auto s : from.partial_sources) insert_sorted(h.partial_sources, source[s]);
    for (const auto& [id, n] : from.source_lanes.items()) {
      const SourceLane k = unpack_source_lane(id);
      const NameApi l = unpack_name_api(k.lane_api);
      h.source_lanes[source_lane(source[k.source], lane[l.name], l.api)] += n;
    }
    for (const auto& [id, n] : from.hosts.items()) h.hosts[host(id)] += n;
    for (const auto& [id, n] : from.installations.items()) h.installations[id] += n;
    for (const auto& [id, c] : from.answers.items()) {
      AnswerCounts& to = h.answers[host(id)];
      for (std::size_t i = 0; i < kAnswerClasses; ++i) add_sum(h, to[i], c[i]);
    }
    for (const auto& [id, e] : from.economy.items()) {
      const auto [ha, l] = later.economy_pairs_.pair(id);
      add_economy(h, h.economy[economy_key(host(ha), lane[l])], e);
    }
    for (const auto& [id, fb] : from.budgets.items()) h.budgets[budget(id)].merge(fb, source[fb.lowest_source]);
    for (const auto& [id, fb] : from.resources.items()) {
      auto [key, name] = later.resource_pairs_.pair(id);
      h.resources[resource_key(budget(key), resource[name])].merge(fb, source[fb.lowest_source]);
    }
  }
  lines_ += later.lines_;
  if (later.overflowed_ && (!overflowed_ || *later.overflowed_ < *overflowed_)) overflowed_ = later.overflowed_;
}

BudgetView Fleet::view_of(const Budget& from, BudgetKind kind) const {
  BudgetView b;
  b.kind = kind;
  b.requests = from.requests;
  b.revalidated = from.revalidated;
  b.lowest = from.lowest;
  b.lowest_at = from.lowest_at;
  if (from.lowest) b.lowest_source = sources_.name(from.lowest_source);
  b.resets = from.lowest_resets;
  b.limit = kind == BudgetKind::core && options_.budget ? options_.budget : from.limit;
  (kind == BudgetKind::other ? b.limited_at : b.exhausted_at) = from.zero_at;
  return b;
}

BudgetKey Fleet::key_of(std::uint64_t budget_key, std::string resource) const {
  const HostInstallation b = budget_pair(budget_key);
  HostApi k = host_api_of(b.host_api);
  return BudgetKey{std::move(k.host), k.api, b.installation, std::move(resource)};
}

namespace {

void add_to(std::uint64_t& sum, std::uint64_t n) { sum += n; }

}  // namespace

// The hour's lanes, their GraphQL part and each source's lanes, from its
// (source, lane, API) sums. A map of many is built whole from its entries
// (a line may name 100 000 lanes), never one insertion at a time; the few
// of a usual hour are inserted in place (no vectors to sort and move: the
// dense bench's 26,000 hours took 1 % more instructions built whole).
void Fleet::lanes_of(const Hour& from, FleetHour& h) const {
  if (from.source_lanes.items().size() <= kInsertedLanes) {
    for (const auto& [id, n] : from.source_lanes.items()) {
      const SourceLane k = unpack_source_lane(id);
      const NameApi l = unpack_name_api(k.lane_api);
      const std::string& name = lanes_.name(static_cast<std::uint32_t>(l.name));
      h.lanes[name] += n;
      if (l.api == Api::graphql) h.graphql_lanes[name] += n;
      SourceHour& s = h.by_source[k.source];
      s.requests += n;
      s.lanes[name] += n;
    }
    return;
  }
  std::vector<LaneSums::value_type> all, graphql;
  std::vector<std::pair<std::uint32_t, LaneSums::value_type>> by_source;  // (source, (lane, n))
  all.reserve(from.source_lanes.items().size());
  by_source.reserve(from.source_lanes.items().size());
  for (const auto& [id, n] : from.source_lanes.items()) {
    const SourceLane k = unpack_source_lane(id);
    const NameApi l = unpack_name_api(k.lane_api);
    const std::string& name = lanes_.name(static_cast<std::uint32_t>(l.name));
    all.emplace_back(name, n);
    if (l.api == Api::graphql) graphql.emplace_back(name, n);
    by_source.emplace_back(k.source, LaneSums::value_type(name, n));
  }
  h.lanes = LaneSums::from_unsorted(std::move(all), add_to);
  h.graphql_lanes = LaneSums::from_unsorted(std::move(graphql), add_to);
  std::sort(by_source.begin(), by_source.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<std::uint32_t, SourceHour>> sources;
  for (std::size_t i = 0; i < by_source.size();) {
    const std::uint32_t source = by_source[i].first;
    SourceHour s;
    std::vector<LaneSums::value_type> lanes;
    for (; i < by_source.size() && by_source[i].first == source; ++i) {
      s.requests += by_source[i].second.second;
      lanes.push_back(std::move(by_source[i].second));
    }
    s.lanes = LaneSums::from_unsorted(std::move(lanes), add_to);
    sources.emplace_back(source, std::move(s));
  }
  h.by_source = decltype(h.by_source)::from_unsorted(std::move(sources));
}

FleetHour Fleet::hour_of(const Hour& from) const {
  FleetHour h;
  h.hour_ending = from.ending;
  h.requests = from.requests;
  h.lines = from.lines;
  h.sources = from.sources;
  h.partial_sources = from.partial_sources;
  lanes_of(from, h);
  // Each map from its entries, in any order: `convert` an id's entry to the map's.
  auto build = [](auto& to, const auto& items, auto convert) {
    std::vector<typename std::decay_t<decltype(to)>::value_type> entries;
    entries.reserve(items.size());
    for (const auto& [id, v] : items) entries.push_back(convert(id, v));
    to = std::decay_t<decltype(to)>::from_unsorted(std::move(entries));
  };
  build(h.hosts, from.hosts.items(), [&](std::uint64_t id, std::uint64_t n) { return std::pair(host_api_of(id), n); });
  build(h.installations, from.installations.items(),
        [](std::uint64_t id, std::uint64_t n) { return std::pair(id, n); });
  build(h.answers, from.answers.items(),
        [&](std::uint64_t id, const AnswerCounts& c) { return std::pair(host_api_of(id), c); });
  build(h.economy, from.economy.items(), [&](std::uint64_t id, const LaneEconomy& e) {
    const auto [ha, l] = economy_pairs_.pair(id);
    HostApi k = host_api_of(ha);
    return std::pair(HostApiLane{std::move(k.host), k.api, lanes_.name(static_cast<std::uint32_t>(l))}, e);
  });
  std::vector<std::pair<BudgetKey, BudgetView>> budgets;
  budgets.reserve(from.budgets.items().size() + from.resources.items().size());
  auto add_budget = [&](BudgetKey key, const Budget& b) {
    const BudgetKind kind = key.kind();
    budgets.emplace_back(std::move(key), view_of(b, kind));
  };
  for (const auto& [id, b] : from.budgets.items()) add_budget(key_of(id, {}), b);
  for (const auto& [id, b] : from.resources.items()) {
    auto [budget, name] = resource_pairs_.pair(id);
    add_budget(key_of(budget, resources_.name(static_cast<std::uint32_t>(name))), b);
  }
  h.budgets = decltype(h.budgets)::from_unsorted(std::move(budgets));
  return h;
}

std::vector<FleetHour> Fleet::hours() const {
  std::vector<const Hour*> order;
  order.reserve(hours_.size());
  for (const Hour& h : hours_) order.push_back(&h);
  std::sort(order.begin(), order.end(), [](const Hour* a, const Hour* b) { return a->ending < b->ending; });
  std::vector<FleetHour> out(order.size());
  auto convert = [&](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i) out[i] = hour_of(*order[i]);
  };
  // A long or dense log has thousands of hours: the later half is built on a
  // second thread (reading this fleet only), whose exception is rethrown here.
  constexpr std::size_t kSplitAt = 2048;
  const std::size_t half = order.size() >= kSplitAt ? order.size() / 2 : order.size();
  std::exception_ptr error;
  std::thread helper;
  if (half < order.size()) {
    try {
      helper = std::thread([&]() noexcept {
        try {
          convert(half, order.size());
        } catch (...) {
          error = std::current_exception();
        }
      });
    } catch (const std::system_error&) {
      convert(half, order.size());  // no second thread: this one does it all
    }
  }
  try {
    convert(0, half);
  } catch (...) {
    if (helper.joinable()) helper.join();
    throw;
  }
  if (helper.joinable()) helper.join();
  if (error) std::rethrow_exception(error);
  return out;
}

// The kinds of both MeterLine and LineView.
template void Fleet::add(std::uint32_t, const CountLine&);
template void Fleet::add(std::uint32_t, const BudgetLine&);
template void Fleet::add(std::uint32_t, const AnswersLine&);
template void Fleet::add(std::uint32_t, const CountLineView&);
template void Fleet::add(std::uint32_t, const BudgetLineView&);
template void Fleet::add(std::uint32_t, const AnswersLineView&);
template void Fleet::add(std::uint32_t, const LanesLine&);
template void Fleet::add(std::uint32_t, const LanesLineView&);

}  // namespace forgemeter::report
