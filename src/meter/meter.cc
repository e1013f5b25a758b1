// Meter: where records land and how the hour turns.
//
// Requests go to one of kShards shards (chosen per thread), each a mutex and
// a CountTable for the hour the shard is counting. Answers, readings,
// refusals, a cache's savings and waits go to one `slow` HourTally. Every container knows its hour: a
// record whose hour is later than its container's turns the hour first (no
// timer); one at or before it counts there (a record that raced a turn, or a
// clock stepped back, counts in the current hour: nothing is dropped).
//
// Turning: under turn_mu_, each container is swapped for an empty one of the
// new hour, each under its own lock for just the swap. Then sink_mu_ is taken
// (so hours reach the sink in order) and turn_mu_ released; folding,
// formatting and the sink run with no lock a request thread takes.
#include <algorithm>
#include <array>
#include <stdexcept>

#include "core/mutex.h"
#include "forgemeter/meter.h"
#include "meter/civil.h"
#include "meter/count_table.h"
#include "meter/prometheus.h"
#include "meter/reading.h"
#include "meter/tally.h"

namespace forgemeter {

namespace {

constexpr std::size_t kShards = 16;

// This thread's shard: threads take shards round-robin as they first record.
std::size_t shard_index() noexcept {
  static std::atomic<std::size_t> next{0};
  thread_local std::size_t mine = static_cast<std::size_t>(-1);
  if (mine == static_cast<std::size_t>(-1)) mine = next.fetch_add(1, std::memory_order_relaxed) % kShards;
  return mine;
}

struct alignas(64) Shard {
  core_detail::Mutex mu;
  std::int64_t hour GUARDED_BY(mu) = 0;
  meter::CountTable table GUARDED_BY(mu);
};

}  // namespace

struct Meter::Impl {
  const Clock* clock;
  LineSink sink;
  std::size_t max_hosts;
  std::size_t max_keys;  // distinct keys a shard or the slow tally holds in one hour before folding early
  bool durations;        // MeterOptions::request_durations

  std::array<Shard, kShards> shards;
  std::atomic<std::uint64_t> seq{0};  // first-seen numbers, for folding hosts

  // Taken last: with turn_mu (and sink_mu) held when the hour turns, alone
  // when an answer is counted. A shard's mu is taken in the same places.
  core_detail::Mutex slow_mu;
  std::int64_t slow_hour GUARDED_BY(slow_mu) = 0;
  meter::HourTally slow GUARDED_BY(slow_mu);

  core_detail::Mutex turn_mu ACQUIRED_BEFORE(sink_mu, slow_mu);
  std::int64_t current GUARDED_BY(turn_mu) = 0;
  std::optional<TimeOfDay> counted_from GUARDED_BY(turn_mu);  // of the current hour

  core_detail::Mutex sink_mu ACQUIRED_BEFORE(slow_mu);
  meter::Cumulative cumulative GUARDED_BY(sink_mu);

  explicit Impl(MeterOptions& o)
      : clock(o.clock ? o.clock : &system_clock()),
        sink(o.sink ? std::move(o.sink) : stderr_sink()),
        max_hosts(o.max_hosts),
        max_keys(std::max<std::size_t>(4096, std::min<std::size_t>(o.max_hosts, 1 << 20) * 64)),
        durations(o.request_durations),
        slow(max_keys),
        cumulative(o.max_hosts, o.max_installations, o.request_durations) {
    const UtcMillis start = clock->now();
    current = meter::hour_index(start);
    if (start > UtcMillis{meter::hour_start(current)}) counted_from = meter::time_of_day(start);
    slow_hour = current;
    for (auto& s : shards) {
      s.hour = current;
      s.table = meter::CountTable(max_keys);
    }
  }

  static void add_table(meter::HourTally& tally, const meter::CountTable& table) {
    table.for_each([&](const meter::CountTable::Slot& s) {
      tally.add_requests(s.host, s.api, s.installation, s.lane, s.count, s.first_seen, s.folded);
    });
  }

  // Under turn_mu: takes everything counted so far; containers go on in `next`.
  meter::HourTally collect(std::int64_t next) REQUIRES(turn_mu) {
    meter::HourTally tally(max_keys);
    {
      core_detail::MutexLock lock(slow_mu);
      std::swap(tally, slow);
      slow_hour = next;
    }
    for (auto& s : shards) {
      meter::CountTable taken(max_keys);
      {
        core_detail::MutexLock lock(s.mu);
        std::swap(taken, s.table);  // an empty table of the same bound
        s.hour = next;
      }
      add_table(tally, taken);
    }
    return tally;
  }

  // Writes `tally` as the lines of `hour`. The caller takes sink_mu, then
  // lets turn_mu go: in line for the sink, with no lock a request takes.
  void write(const meter::HourTally& tally, std::int64_t hour, HourNote note) REQUIRES(sink_mu) {
    try {
      const auto lines = tally.fold(meter::hour_start(hour + 1), note, max_hosts);
      cumulative.add(lines);
      for (const auto& line : lines.lines()) {
        try {
          sink(format_line(line));
        } catch (...) {
          // A sink that throws loses its line, never a count nor the caller's thread.
        }
      }
    } catch (...) {
      // Out of memory while folding: this hour's lines are lost, the process is not.
    }
  }

  void turn_to(std::int64_t hour) EXCLUDES(turn_mu, sink_mu) {
    core_detail::UniqueLock turn(turn_mu);
    if (current >= hour) return;  // another thread turned it
    const auto old = current;
    const HourNote note{counted_from, std::nullopt};
    meter::HourTally tally = collect(hour);
    current = hour;
    counted_from.reset();
    if (tally.empty()) return;
    core_detail::MutexLock in_order(sink_mu);
    turn.unlock();
    write(tally, old, note);
  }

  // Counts into whichever container `add` picks, once its hour has reached `hour`.
  template <class Add>
  void with_slow(std::int64_t hour, Add add) {
    for (;;) {
      {
        core_detail::MutexLock lock(slow_mu);
        if (hour <= slow_hour) {
          add(slow);
          return;
        }
      }
      turn_to(hour);
    }
  }
};

Meter::Meter(MeterOptions options) {
  if (options.max_hosts == 0) throw std::invalid_argument("MeterOptions::max_hosts must be at least 1");
  if (options.max_installations == 0) throw std::invalid_argument("MeterOptions::max_installations must be at least 1");
  impl_ = std::make_unique<Impl>(options);
}

Meter::~Meter() { flush(); }

const Clock& Meter::clock() const noexcept { return *impl_->clock; }

void Meter::record_request(const RequestKey& key, UtcMillis sent) noexcept {
  const std::int64_t hour = meter::hour_index(sent);
  const std::uint64_t hash = meter::hash_key(key);
  Shard& shard = impl_->shards[shard_index()];
  for (;;) {
    {
      core_detail::MutexLock lock(shard.mu);
      if (hour <= shard.hour) {
        shard.table.add(hash, key, impl_->seq);
        return;
      }
    }
    impl_->turn_to(hour);
  }
}

void Meter::record_answer(const AnswerRecord& a) noexcept {
  const auto cls = meter::classify(a.status, a.headers, a.body, a.key.api);
  std::optional<meter::Reading> reading;
  meter::ResourceName resource;
  if (a.key.installation != 0 && resource.assign(meter::resource_header(a.headers), a.key.api))
    reading = meter::read_budget(a.headers, a.seen);
  // An answered hop's duration, its bucket found before the lock.
  const bool timed = impl_->durations && a.elapsed >= Duration::zero() && a.status != kNoAnswer &&
                     static_cast<std::size_t>(cls) < meter::kTimedClasses;
  const meter::Timing timing = timed ? meter::timing_of(a.elapsed) : meter::Timing{};
  const auto first = impl_->seq.fetch_add(1, std::memory_order_relaxed);
  impl_->with_slow(meter::hour_index(a.seen), [&](meter::HourTally& t) {
    t.add_answer_reading(a.key.host, a.key.api, a.key.lane, cls, a.key.installation, resource.view(),
                         reading ? &*reading : nullptr, first, timed ? &timing : nullptr);
  });
}

void Meter::record_unsent(const RequestKey& key, UtcMillis at, AnswerClass c) noexcept {
  const auto first = impl_->seq.fetch_add(1, std::memory_order_relaxed);
  impl_->with_slow(meter::hour_index(at),
                   [&](meter::HourTally& t) { t.add_answer(key.host, key.api, key.lane, c, 1, first); });
}

void Meter::record_refused(const RequestKey& key, UtcMillis at) noexcept {
  record_unsent(key, at, AnswerClass::refused);
}
void Meter::record_coalesced(const RequestKey& key, UtcMillis at) noexcept {
  record_saved(key, at, AnswerClass::coalesced);
}
void Meter::record_revalidated(const RequestKey& key, UtcMillis at) noexcept {
  record_saved(key, at, AnswerClass::revalidated);
}

void Meter::record_saved(const RequestKey& key, UtcMillis at, AnswerClass c) noexcept {
  const auto first = impl_->seq.fetch_add(1, std::memory_order_relaxed);
  impl_->with_slow(meter::hour_index(at),
                   [&](meter::HourTally& t) { t.add_saved(key.host, key.api, key.installation, key.lane, c, first); });
}

void Meter::record_wait(const RequestKey& key, WaitCause cause, std::chrono::milliseconds waited,
                        UtcMillis at) noexcept {
  if (waited <= std::chrono::milliseconds::zero() || static_cast<std::size_t>(cause) >= kWaitCauses) return;
  const auto first = impl_->seq.fetch_add(1, std::memory_order_relaxed);
  const auto ms = static_cast<std::uint64_t>(waited.count());
  impl_->with_slow(meter::hour_index(at), [&](meter::HourTally& t) {
    t.add_wait(key.host, key.api, key.installation, key.lane, cause, ms, first);
  });
}

void Meter::flush() noexcept {
  auto& m = *impl_;
  core_detail::UniqueLock turn(m.turn_mu);
  const UtcMillis now = m.clock->now();
  const bool inside = meter::hour_index(now) == m.current;
  const HourNote note{m.counted_from, inside ? std::optional(meter::time_of_day(now)) : std::nullopt};
  meter::HourTally tally = m.collect(m.current);
  if (tally.empty()) return;
  // What comes after a stop inside the hour is counted from the stop.
  m.counted_from = inside ? note.until : std::nullopt;
  const std::int64_t hour = m.current;
  core_detail::MutexLock in_order(m.sink_mu);
  turn.unlock();
  m.write(tally, hour, note);
}

std::string Meter::prometheus() const { return meter::exposition(metrics()); }

MeterMetrics Meter::metrics() const {
  auto& m = *impl_;
  core_detail::MutexLock turn(m.turn_mu);
  core_detail::MutexLock in_order(m.sink_mu);  // an hour being written is in `cumulative` by now
  meter::HourTally live;
  {
    core_detail::MutexLock lock(m.slow_mu);
    live = m.slow;
  }
  for (auto& s : m.shards) {
    meter::CountTable copy(m.max_keys);
    {
      core_detail::MutexLock lock(s.mu);
      copy = s.table;
    }
    Impl::add_table(live, copy);
  }
  meter::Cumulative view = m.cumulative;
  view.add(live.fold(meter::hour_start(m.current + 1), {}, m.max_hosts));
  return view.metrics(m.clock->now());
}

}  // namespace forgemeter
