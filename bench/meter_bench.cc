// The request-record hot path: Meter::record_request, 1 and 2 threads, beside
// the naive design in the same binary (one mutex around an ordered map keyed
// by strings built per record). Targets: <= 50 ns per record on one
// thread; >= 3x the baseline's throughput at 2 threads. And the answer path,
// Meter::record_answer with a budget reading (compared between builds: bench/meter.md).
// And a request and its answer with the request-duration histogram on and
// off (target: on costs at most 15 ns more per request than off).
//
//   build/<dir>/bench/meter_bench --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <array>
#include <map>
#include <mutex>
#include <string>

#include "forgemeter/meter.h"

namespace {

using namespace forgemeter;

// 16 keys a busy client would rotate through: 2 hosts x 2 APIs x 2 installations x 2 lanes.
const std::array<RequestKey, 16>& keys() {
  static const std::array<RequestKey, 16> k = [] {
    std::array<RequestKey, 16> out;
    const Lane lanes[] = {Lane{"merge-gate-sweeper"}, Lane::other()};
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = {.host = i & 1 ? "api.github.com" : "uploads.github.com",
                .api = i & 2 ? Api::graphql : Api::rest,
                .installation = i & 4 ? 101u : 0u,
                .lane = lanes[(i >> 3) & 1]};
    return out;
  }();
  return k;
}

// All records of a run fall in one hour: this measures counting, not turning.
const UtcMillis kSent{std::chrono::hours{493'000} + std::chrono::minutes{5}};

Meter& shared_meter() {
  static Meter* m = new Meter({.sink = [](std::string_view) {}});  // lives for the process: threads share it
  return *m;
}

void BM_Meter(benchmark::State& state) {
  Meter& meter = shared_meter();
  const auto& k = keys();
  std::size_t i = static_cast<std::size_t>(state.thread_index());
  for (auto _ : state) meter.record_request(k[i++ & 15], kSent);
  state.SetItemsProcessed(state.iterations());
}

// The baseline: what one would write first.
class NaiveMeter {
 public:
  void record(const RequestKey& key, UtcMillis) {
    std::string k(key.host);
    k += ' ';
    k += to_string(key.api);
    k += ' ';
    k += std::to_string(key.installation);
    k += ' ';
    k += key.lane.name();
    std::lock_guard lock(mu_);
    ++counts_[k];
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::uint64_t> counts_;
};

void BM_NaiveBaseline(benchmark::State& state) {
  static NaiveMeter* naive = new NaiveMeter;
  const auto& k = keys();
  std::size_t i = static_cast<std::size_t>(state.thread_index());
  for (auto _ : state) naive->record(k[i++ & 15], kSent);
  state.SetItemsProcessed(state.iterations());
}

// Meter::record_answer with GitHub's headers for an answer of installation
// 101 (its budget reading); range(0) = 1: every 8th answer is a search's,
// on a resource of its own. The header views are offered by name, as the
// Transport's header callback finds them.
void BM_RecordAnswer(benchmark::State& state) {
  Meter& meter = shared_meter();
  const RequestKey key{.host = "api.github.com", .installation = 101, .lane = Lane{"merge-gate-sweeper"}};
  const bool searches = state.range(0) == 1;
  std::uint64_t n = 0;
  for (auto _ : state) {
    AnswerRecord a{.key = key, .seen = kSent, .status = 200};
    const bool search = searches && (n & 7) == 0;
    a.headers.offer("X-RateLimit-Limit", search ? "30" : "5000");
    a.headers.offer("X-RateLimit-Remaining", search ? "17" : "4321");
    a.headers.offer("X-RateLimit-Reset", "1774800000");
    a.headers.offer("X-RateLimit-Resource", search ? "search" : "core");
    meter.record_answer(a);
    ++n;
  }
  state.SetItemsProcessed(state.iterations());
}

// What a request's recording costs in all: record_request, then
// record_answer of a GitHub answer with its elapsed time (8 durations across
// the buckets), on a Meter of its own; range(0) = 1: the histogram on, 0: off.
// Written to compile against the meter before the histogram too (where both
// are today's meter), so one source compares the builds.
template <class Options>
void set_durations(Options& o, bool on) {
  if constexpr (requires { o.request_durations; }) o.request_durations = on;
}
template <class Record>
void set_elapsed(Record& a, std::chrono::milliseconds d) {
  if constexpr (requires { a.elapsed; }) a.elapsed = d;
}

void BM_RequestAndAnswer(benchmark::State& state) {
  MeterOptions options{.sink = [](std::string_view) {}};
  set_durations(options, state.range(0) == 1);
  Meter meter(std::move(options));
  const RequestKey key{.host = "api.github.com", .installation = 101, .lane = Lane{"merge-gate-sweeper"}};
  constexpr std::chrono::milliseconds kElapsed[] = {std::chrono::milliseconds{30},  std::chrono::milliseconds{80},
                                                    std::chrono::milliseconds{180}, std::chrono::milliseconds{320},
                                                    std::chrono::milliseconds{700}, std::chrono::milliseconds{2'000},
                                                    std::chrono::milliseconds{140}, std::chrono::milliseconds{40'000}};
  std::uint64_t n = 0;
  for (auto _ : state) {
    meter.record_request(key, kSent);
    AnswerRecord a{.key = key, .seen = kSent, .status = 200};
    a.headers.offer("X-RateLimit-Limit", "5000");
    a.headers.offer("X-RateLimit-Remaining", "4321");
    a.headers.offer("X-RateLimit-Reset", "1774800000");
    a.headers.offer("X-RateLimit-Resource", "core");
    set_elapsed(a, kElapsed[n++ & 7]);
    meter.record_answer(a);
  }
  state.SetItemsProcessed(state.iterations());
}

// Off and on alternate, repeated: a machine's drift falls on both.
BENCHMARK(BM_RequestAndAnswer)->ArgName("histogram")->Arg(0)->Arg(1);
// Real time, so items_per_second is the throughput of all threads together.
BENCHMARK(BM_RecordAnswer)->Arg(0)->Arg(1);
BENCHMARK(BM_Meter)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_NaiveBaseline)->Threads(1)->Threads(2)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
