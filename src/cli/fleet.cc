#include "cli/fleet.h"

#include <algorithm>

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

std::uint32_t Fleet::source(std::string_view name) {
  auto [it, fresh] = ids_.try_emplace(std::string(name), static_cast<std::uint32_t>(names_.size()));
  if (fresh) names_.emplace_back(name);
  return it->second;
}

FleetHour& Fleet::hour(Instant ending, std::uint32_t source, const HourNote& note) {
  auto [it, fresh] = hours_.try_emplace(ending);
  FleetHour& h = it->second;
  if (fresh) h.hour_ending = ending;
  insert_sorted(h.sources, source);
  if (!note.whole()) insert_sorted(h.partial_sources, source);
  ++h.lines;
  ++lines_;
  return h;
}

void Fleet::add(std::uint32_t source, const MeterLine& line) {
  std::visit(
      [&](const auto& l) {
        FleetHour& h = hour(Instant(l.hour_ending), source, l.note);
        using T = std::decay_t<decltype(l)>;
        if constexpr (std::is_same_v<T, CountLine>) add_count(h, l);
        else if constexpr (std::is_same_v<T, BudgetLine>) add_budget(h, source, l);
        else add_answers(h, l);
      },
      line);
}

void Fleet::add_count(FleetHour& h, const CountLine& line) {
  for (const CountEntry& e : line.entries) {
    h.requests += e.count;
    h.lanes[e.lane] += e.count;
    h.hosts[HostApi{e.host, e.api}] += e.count;
    h.installations[e.installation] += e.count;
    if (e.installation != 0) h.budgets[BudgetKey{e.host, e.api, e.installation}].requests += e.count;
  }
}

void Fleet::add_budget(FleetHour& h, std::uint32_t source, const BudgetLine& line) {
  for (const BudgetEntry& e : line.entries) {
    BudgetView& b = h.budgets[BudgetKey{e.host, e.api, e.installation}];
    BudgetView reading;
    reading.lowest = e.remaining;
    reading.lowest_at = instant_in_hour(h.hour_ending, e.at);
    if (!b.lowest || lower(reading, b)) {
      b.lowest = reading.lowest;
      b.lowest_at = reading.lowest_at;
      b.lowest_source = names_.at(source);
    }
    if (e.limit && (!b.limit || *e.limit > *b.limit)) b.limit = e.limit;
    if (e.remaining == 0 && (!b.exhausted_at || reading.lowest_at < *b.exhausted_at)) b.exhausted_at = reading.lowest_at;
  }
}

void Fleet::add_answers(FleetHour& h, const AnswersLine& line) {
  for (const AnswersEntry& e : line.entries) {
    AnswerCounts& c = h.answers[HostApi{e.host, e.api}];
    for (std::size_t i = 0; i < kAnswerClasses; ++i) c[i] += e.counts[i];
  }
}

std::vector<FleetHour> Fleet::hours() const {
  std::vector<FleetHour> out;
  out.reserve(hours_.size());
  for (const auto& [ending, h] : hours_) {
    out.push_back(h);
    if (options_.budget)
      for (auto& [key, b] : out.back().budgets) b.limit = options_.budget;
  }
  return out;
}

}  // namespace forgemeter::cli
