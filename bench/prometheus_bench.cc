// One scrape of ~10 000 series: forgemeter's MeterCollectable beside a
// prometheus::Registry of 10 000 plain prometheus-cpp counters, in the same
// binary and run. Target: forgemeter's scrape <= 1.5x the baseline's.
//
//   BM_ScrapeCounters        Registry::Collect() + TextSerializer::Serialize of
//                            one Family<Counter>: 2 000 installations x 5 lanes
//   BM_ScrapeMeter/<live>    MeterCollectable::Collect() + TextSerializer::Serialize
//   BM_MeterText/<live>      Meter::prometheus() alone (no prometheus-cpp)
//
// The Meter: one host, 1 000 installations x 5 lanes of requests, each
// installation a core budget read low enough to be projected to run out
// (5 gauges), answers of 5 lanes (2xx, and limited and secondary from 0).
// live = 0: everything in the counters of past hours (just after a turn);
// live = 1: every key counted again in the current hour too, which each
// scrape folds in (the steady state of a service busy all hour).
// bench/README.md says how to run it and compare; bench/prometheus.md, its figures.
#include <benchmark/benchmark.h>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <memory>
#include <string>
#include <vector>

#include "forgemeter/meter.h"
#include "forgemeter/prometheus.h"
#include "forgemeter/testing/manual_clock.h"

namespace {

using namespace forgemeter;
using std::chrono::hours;
using std::chrono::minutes;

constexpr const char* kLanes[] = {"merge-gate", "sweeper", "triage", "backport", "release"};
constexpr std::uint64_t kCounterInstallations = 2000;
constexpr std::uint64_t kMeterInstallations = 1000;

std::size_t series_of(const std::vector<prometheus::MetricFamily>& families) {
  std::size_t n = 0;
  for (const auto& f : families) n += f.metric.size();
  return n;
}

// The timed loop: one scrape = Collect() then TextSerializer::Serialize.
void scrape(benchmark::State& state, const prometheus::Collectable& from) {
  std::size_t bytes = 0, series = 0;
  for (auto _ : state) {
    const auto families = from.Collect();
    const std::string text = prometheus::TextSerializer().Serialize(families);
    bytes = text.size();
    series = series_of(families);
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["series"] = static_cast<double>(series);
  state.counters["bytes"] = static_cast<double>(bytes);
}

void BM_ScrapeCounters(benchmark::State& state) {
  auto registry = std::make_shared<prometheus::Registry>();
  auto& family = prometheus::BuildCounter()
                     .Name("forgemeter_requests_total")
                     .Help("Requests put on the wire since start, by host, API, installation and lane.")
                     .Register(*registry);
  for (std::uint64_t i = 1; i <= kCounterInstallations; ++i)
    for (const char* lane : kLanes)
      family.Add({{"host", "api.github.com"}, {"api", "rest"}, {"installation", std::to_string(i)}, {"lane", lane}})
          .Increment();
  scrape(state, *registry);
}

// An hour on the meter's clock: every key of the mix counted at its half past.
const UtcMillis kHour{hours{493'000}};

void count_hour(Meter& meter, UtcMillis at) {
  const auto seen = at + minutes{30};
  const std::string reset =
      std::to_string(std::chrono::floor<std::chrono::seconds>(at + hours{1}).time_since_epoch().count());
  for (std::uint64_t i = 1; i <= kMeterInstallations; ++i) {
    for (const char* lane : kLanes) {
      const RequestKey key{.host = "api.github.com", .installation = i, .lane = Lane{lane}};
      meter.record_request(key, seen);
    }
    // 4000 of 5000 spent in half the window: projected to run out before the reset.
    AnswerRecord a{
        .key = {.host = "api.github.com", .installation = i, .lane = Lane{kLanes[i % 5]}}, .seen = seen, .status = 200};
    a.headers.offer("X-RateLimit-Limit", "5000");
    a.headers.offer("X-RateLimit-Remaining", "1000");
    a.headers.offer("X-RateLimit-Reset", reset);
    a.headers.offer("X-RateLimit-Resource", "core");
    meter.record_answer(a);
  }
}

// The meter of the mix; `live`: the current hour holds every key too.
struct MeterRig {
  ManualClock clock{kHour};
  std::unique_ptr<Meter> meter;

  explicit MeterRig(bool live) {
    // max_hosts 128: an hour's request table holds 8192 keys (5 000 here, none folded)
    meter = std::make_unique<Meter>(
        MeterOptions{.clock = &clock, .sink = [](std::string_view) {}, .max_hosts = 128, .max_installations = 100'000});
    count_hour(*meter, kHour);
    if (live) {
      count_hour(*meter, kHour + hours{1});  // turns the first hour into the cumulative counters
      clock.advance(hours{1} + minutes{31});
    } else {
      clock.advance(minutes{31});
      meter->flush();
    }
  }
};

std::size_t series_of(const MeterMetrics& m) {
  std::size_t n = 0;
  for (const auto& f : m.families) n += f.samples.size();
  return n;
}

void BM_ScrapeMeter(benchmark::State& state) {
  const MeterRig rig(state.range(0) == 1);
  const MeterCollectable collectable(*rig.meter);
  scrape(state, collectable);
}

void BM_MeterText(benchmark::State& state) {
  const MeterRig rig(state.range(0) == 1);
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = rig.meter->prometheus();
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["series"] = static_cast<double>(series_of(rig.meter->metrics()));
  state.counters["bytes"] = static_cast<double>(bytes);
}

BENCHMARK(BM_ScrapeCounters)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScrapeMeter)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MeterText)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
