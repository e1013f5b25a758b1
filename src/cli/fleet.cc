#include "cli/fleet.h"

#include <algorithm>
#include <exception>
#include <system_error>
#include <thread>

namespace forgemeter::cli {

namespace {

void insert_sorted(std::vector<std::uint32_t>& v, std::uint32_t x) {
  auto it = std::lower_bound(v.begin(), v.end(), x);
  if (it == v.end() || *it != x) v.insert(it, x);
}

// Lower remaining first, then the earlier reading.
bool lower(const BudgetView& a, const BudgetView& b) {
  if (*a.lowest != *b.lowest) return *a.lowest < *b.lowest;
  return a.lowest_at < b.lowest_at;
}

}  // namespace

bool LaneOrder::operator()(const std::string& a, const std::string& b) const {
  bool ao = a == "other", bo = b == "other";
  if (ao != bo) return ao;
  return a < b;
}

Instant instant_in_hour(Instant hour_ending, TimeOfDay at) {
  using namespace std::chrono;
  Instant start = hour_ending - hours(1);
  Instant t = floor<days>(start) + at;
  if (t > hour_ending + hours(12)) t -= days(1);
  if (t < start - hours(12)) t += days(1);
  return t;
}

bool FleetHour::exhausted() const {
  return std::any_of(budgets.begin(), budgets.end(), [](const auto& kv) { return kv.second.exhausted(); });
}

std::optional<Instant> FleetHour::first_exhausted_at() const {
  std::optional<Instant> first;
  for (const auto& [key, b] : budgets)
    if (b.exhausted_at && (!first || *b.exhausted_at < *first)) first = b.exhausted_at;
  return first;
}

const BudgetView* FleetHour::lowest_budget() const {
  const BudgetView* best = nullptr;
  for (const auto& [key, b] : budgets)
    if (b.lowest && (best == nullptr || lower(b, *best))) best = &b;
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

void Fleet::add(std::uint32_t source, const LineView& line) {
  Hour& h = hour(Instant(line.hour_ending));
  insert_sorted(h.sources, source);
  if (!line.note.whole()) insert_sorted(h.partial_sources, source);
  ++h.lines;
  ++lines_;
  switch (line.kind) {
    case LineView::Kind::count: add_count(h, line); break;
    case LineView::Kind::budget: add_budget(h, source, line); break;
    case LineView::Kind::answers: add_answers(h, line); break;
  }
}

void Fleet::add(std::uint32_t source, const MeterLine& line) {
  LineView v;
  std::visit(
      [&](const auto& l) {
        v.hour_ending = l.hour_ending;
        v.note = l.note;
        using T = std::decay_t<decltype(l)>;
        if constexpr (std::is_same_v<T, CountLine>) {
          v.kind = LineView::Kind::count;
          v.total = l.total;
          for (const auto& e : l.entries) v.counts.push_back({e.host, e.api, e.installation, e.lane, e.count});
        } else if constexpr (std::is_same_v<T, BudgetLine>) {
          v.kind = LineView::Kind::budget;
          for (const auto& e : l.entries)
            v.budgets.push_back({e.host, e.api, e.installation, e.resource, e.remaining, e.limit, e.at, e.resets});
        } else {
          v.kind = LineView::Kind::answers;
          for (const auto& e : l.entries) v.answers.push_back({e.host, e.api, e.counts});
        }
      },
      line);
  add(source, v);
}

void Fleet::add_count(Hour& h, const LineView& line) {
  for (const CountEntryView& e : line.counts) {
    const std::uint64_t ha = host_api(e.host, e.api);
    h.requests += e.count;
    h.lanes[lanes_.id(e.lane)] += e.count;
    h.hosts[ha] += e.count;
    h.installations[e.installation] += e.count;
    if (e.installation != 0) h.budgets[budget_key(ha, e.installation)].requests += e.count;
  }
}

namespace {

// Whether reading (remaining, at) is lower than the budget's lowest so far.
template <class B>
bool lower_than(std::uint64_t remaining, Instant at, const B& b) {
  if (!b.lowest) return true;
  if (remaining != *b.lowest) return remaining < *b.lowest;
  return at < b.lowest_at;
}

}  // namespace

void Fleet::add_budget(Hour& h, std::uint32_t source, const LineView& line) {
  for (const BudgetEntryView& e : line.budgets) {
    Budget& b = h.budgets[budget_key(host_api(e.host, e.api), e.installation)];
    const Instant at = instant_in_hour(h.ending, e.at);
    if (lower_than(e.remaining, at, b)) {
      b.lowest = e.remaining;
      b.lowest_at = at;
      b.lowest_source = source;
    }
    if (e.limit && (!b.limit || *e.limit > *b.limit)) b.limit = e.limit;
    if (e.remaining == 0 && (!b.exhausted_at || at < *b.exhausted_at)) b.exhausted_at = at;
  }
}

void Fleet::add_answers(Hour& h, const LineView& line) {
  for (const AnswersEntryView& e : line.answers) {
    AnswerCounts& c = h.answers[host_api(e.host, e.api)];
    for (std::size_t i = 0; i < kAnswerClasses; ++i) c[i] += e.counts[i];
  }
}

void Fleet::absorb(const Fleet& later) {
  std::vector<std::uint32_t> source(later.sources_.names().size()), lane(later.lanes_.names().size());
  for (std::size_t i = 0; i < source.size(); ++i) source[i] = sources_.id(later.sources_.name(static_cast<std::uint32_t>(i)));
  for (std::size_t i = 0; i < lane.size(); ++i) lane[i] = lanes_.id(later.lanes_.name(static_cast<std::uint32_t>(i)));
  auto host = [&](std::uint64_t id) {
    HostApi k = later.host_api_of(id);
    return host_api(k.host, k.api);
  };
  for (const Hour& from : later.hours_) {
    Hour& h = hour(from.ending);
    h.requests += from.requests;
    h.lines += from.lines;
    for (auto s : from.sources) insert_sorted(h.sources, source[s]);
    for (auto s : from.partial_sources) insert_sorted(h.partial_sources, source[s]);
    for (const auto& [id, n] : from.lanes.items()) h.lanes[lane[id]] += n;
    for (const auto& [id, n] : from.hosts.items()) h.hosts[host(id)] += n;
    for (const auto& [id, n] : from.installations.items()) h.installations[id] += n;
    for (const auto& [id, c] : from.answers.items()) {
      AnswerCounts& to = h.answers[host(id)];
      for (std::size_t i = 0; i < kAnswerClasses; ++i) to[i] += c[i];
    }
    for (const auto& [id, fb] : from.budgets.items()) {
      auto [ha, inst] = later.budget_pair(id);
      Budget& b = h.budgets[budget_key(host(ha), inst)];
      b.requests += fb.requests;
      if (fb.lowest && lower_than(*fb.lowest, fb.lowest_at, b)) {  // a tie keeps the earlier line's reading
        b.lowest = fb.lowest;
        b.lowest_at = fb.lowest_at;
        b.lowest_source = source[fb.lowest_source];
      }
      if (fb.limit && (!b.limit || *fb.limit > *b.limit)) b.limit = fb.limit;
      if (fb.exhausted_at && (!b.exhausted_at || *fb.exhausted_at < *b.exhausted_at)) b.exhausted_at = fb.exhausted_at;
    }
  }
  lines_ += later.lines_;
}

FleetHour Fleet::hour_of(const Hour& from) const {
  FleetHour h;
  h.hour_ending = from.ending;
  h.requests = from.requests;
  h.lines = from.lines;
  h.sources = from.sources;
  h.partial_sources = from.partial_sources;
  for (const auto& [id, n] : from.lanes.items()) h.lanes.emplace(lanes_.name(static_cast<std::uint32_t>(id)), n);
  for (const auto& [id, n] : from.hosts.items()) h.hosts.emplace(host_api_of(id), n);
  for (const auto& [id, n] : from.installations.items()) h.installations.emplace(id, n);
  for (const auto& [id, c] : from.answers.items()) h.answers.emplace(host_api_of(id), c);
  for (const auto& [id, fb] : from.budgets.items()) {
    auto [ha, inst] = budget_pair(id);
    HostApi k = host_api_of(ha);
    BudgetView b;
    b.requests = fb.requests;
    b.lowest = fb.lowest;
    b.lowest_at = fb.lowest_at;
    if (fb.lowest) b.lowest_source = sources_.name(fb.lowest_source);
    b.limit = options_.budget ? options_.budget : fb.limit;
    b.exhausted_at = fb.exhausted_at;
    h.budgets.emplace(BudgetKey{k.host, k.api, inst}, std::move(b));
  }
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

}  // namespace forgemeter::cli
