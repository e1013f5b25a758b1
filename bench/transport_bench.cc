// Requests per second through the metered Transport vs the same requests with
// a bare, reused libcurl easy handle, against the loopback forge, same run.
//
//   build/<dir>/bench/transport_bench --benchmark_repetitions=5
//
// Both send GET /repos/o/r/pulls/1 to api.forge.test (resolved to 127.0.0.1)
// with `Authorization: Bearer inst-101` and `User-Agent: forgemeter`, keep
// their connection alive and collect the body and the answer's headers into
// memory (the bare handle into two strings). The Transport also validates the
// request, takes a pooled handle (reset only when needed; only options that
// differ are set again), runs the per-hop counting callbacks, records every
// request and answer (with its rate-limit headers) to a Meter, and returns an
// owned Response (body, Headers, one Hop).
//
// BM_Paired is the number to read: it alternates batches of 200 bare and 200
// metered requests inside one benchmark (so load drift on a shared machine
// hits both alike) and reports bare_rps, metered_rps and ratio =
// metered_rps / bare_rps, plus the client thread's CPU time per request
// (bare_cpu_us, metered_cpu_us; the forge's threads are not in it), which is
// steadier than wall time on a loaded machine. BM_BareCurl and
// BM_MeteredTransport run each alone. BM_Steps splits the metered cost: the
// bare handle plus only the counting callbacks and Meter (counter_cpu_us),
// plus only the per-request reset and options (reset_cpu_us), and the whole
// Transport (transport_cpu_us), in blocks of 500, client CPU per request.
//
// The cache (docs/cache.md): BM_FixedRevalidated is BM_FixedMetered with
// TransportOptions::cache on, so after the first each request goes out with
// If-None-Match and its 304 is answered from the kept entry (the forge's
// 304 has no body: compare the client thread's instructions with
// BM_FixedMetered's full 200). BM_CacheHitPath is the cache's own work per
// request with the wire taken out (a canned 304): key, lookup, the
// conditional request, the kept answer made the Response, ns per request.
#include <benchmark/benchmark.h>
#include <curl/curl.h>

#include <time.h>

#include <chrono>
#include <memory>
#include <string>

#include "forgemeter/meter.h"
#include "forgemeter/transport.h"
#include "testforge/forge.h"
#include "transport/body_tap.h"
#include "transport/cache/cache_front.h"
#include "transport/easy_options.h"
#include "transport/hop_counter.h"

namespace {

namespace tf = forgemeter::testforge;
using Steady = std::chrono::steady_clock;

// CPU time of the calling thread.
std::chrono::nanoseconds thread_cpu() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

tf::Forge& forge() {
  static tf::Forge f({.installation_limit = 1u << 30, .record_limit = 0});
  return f;
}
std::string bench_url() { return forge().url("api.forge.test", "/repos/o/r/pulls/1"); }

std::size_t collect(char* d, std::size_t size, std::size_t n, void* sink) {
  static_cast<std::string*>(sink)->append(d, size * n);
  return size * n;
}

// The baseline: one easy handle, options set once, reused.
class Bare {
 public:
  Bare() : url_(bench_url()) {
    for (const auto& e : forge().resolve()) resolve_ = curl_slist_append(resolve_, e.c_str());
    headers_ = curl_slist_append(nullptr, "Authorization: Bearer inst-101");
    curl_easy_setopt(h_, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(h_, CURLOPT_RESOLVE, resolve_);
    curl_easy_setopt(h_, CURLOPT_HTTPHEADER, headers_);
    curl_easy_setopt(h_, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h_, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(h_, CURLOPT_USERAGENT, "forgemeter");  // what the Transport sends
    curl_easy_setopt(h_, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(h_, CURLOPT_WRITEDATA, &body_);
    // The caller gets the answer's headers too, as from the Transport.
    curl_easy_setopt(h_, CURLOPT_HEADERFUNCTION, collect);
    curl_easy_setopt(h_, CURLOPT_HEADERDATA, &headers_in_);
  }
  ~Bare() {
    curl_easy_cleanup(h_);
    curl_slist_free_all(headers_);
    curl_slist_free_all(resolve_);
  }
  void set(CURLoption option, long value) { curl_easy_setopt(h_, option, value); }
  [[gnu::noinline]] bool once() {  // noinline: callgrind reports its cost per call
    body_.clear();
    headers_in_.clear();
    const bool ok = curl_easy_perform(h_) == CURLE_OK;
    benchmark::DoNotOptimize(body_.data());
    benchmark::DoNotOptimize(headers_in_.data());
    return ok;
  }
  // The same request with the transport's counting callbacks and a Meter.
  bool counted(forgemeter::Meter& meter) {
    namespace td = forgemeter::transport_detail;
    td::HopCounter counter(meter, forgemeter::Lane::other(), 101, url_);
    counter.attach(h_);
    body_.clear();
    const CURLcode rc = curl_easy_perform(h_);
    counter.finish(h_, rc);
    return rc == CURLE_OK;
  }
  // The same request after the transport's reset and options (no counting).
  bool reset_each_time(const forgemeter::TransportOptions& o) {
    namespace td = forgemeter::transport_detail;
    curl_easy_reset(h_);
    char error[CURL_ERROR_SIZE];
    td::ConnectionSettings s{&o, nullptr, false, o.connect_timeout, o.timeout, &tap_, error};
    td::apply_connection(h_, s);
    tap_.begin(h_, nullptr, nullptr, {.retries = false, .idempotent = true});  // the body kept whole, as without a sink
    static const std::string get = "GET", none;
    td::apply_hop(h_, get, url_, headers_, none, false);
    curl_easy_setopt(h_, CURLOPT_HEADERFUNCTION, collect);
    curl_easy_setopt(h_, CURLOPT_HEADERDATA, &headers_in_);
    return once();
  }

 private:
  std::string url_;
  CURL* h_ = curl_easy_init();
  curl_slist* resolve_ = nullptr;
  curl_slist* headers_ = nullptr;
  std::string body_;
  forgemeter::transport_detail::BodyTap tap_;  // reset_each_time's body, as the Transport's
  std::string headers_in_;
};

// The baseline as a production client would configure it: the same
// transfer timeouts the Transport applies by default (TransportOptions{}).
// libcurl keeps a timer per transfer for them (≈ 0.6k instructions a request).
class BareWithTimeouts : public Bare {
 public:
  BareWithTimeouts() {
    const forgemeter::TransportOptions defaults;
    set(CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(defaults.connect_timeout.count()));
    set(CURLOPT_TIMEOUT_MS, static_cast<long>(defaults.timeout.count()));
  }
};

// How the metered Transport is set up: as a forge client would use it, but
// for GitHub's REST points a minute (2000 GETs a second would wait for
// them: each other secondary limit is on, as by default); with every
// secondary limit off (the admission is then one branch); or with the lane
// paced too (on a budget the bench never comes near: it never waits).
enum class Setup { usual, unlimited, paced };

forgemeter::TransportOptions metered_options(forgemeter::Meter& meter, Setup setup) {
  forgemeter::TransportOptions o{.meter = &meter, .resolve = forge().resolve()};
  o.rate_limits.secondary_limits.rest_points_per_minute = 0;
  if (setup == Setup::unlimited) o.rate_limits.secondary_limits = forgemeter::SecondaryLimitOptions::off();
  if (setup == Setup::paced) o.rate_limits.pacing.lanes = {{.lane = forgemeter::Lane{"bench"}, .installation = 101}};
  return o;
}

// The metered Transport.
template <Setup S>
class MeteredAs {
 public:
  MeteredAs()
      : meter_({.sink = [](std::string_view) {}}),
        transport_(metered_options(meter_, S)),
        req_{.url = bench_url(), .lane = forgemeter::Lane{"bench"}, .installation = 101, .bearer = "inst-101"} {}
  [[gnu::noinline]] bool once() {
    auto res = transport_.perform(req_);
    benchmark::DoNotOptimize(res.body.data());
    return res.ok() && res.status == 200;
  }

 private:
  forgemeter::Meter meter_;
  forgemeter::Transport transport_;
  forgemeter::Request req_;
};

using Metered = MeteredAs<Setup::usual>;
using MeteredUnlimited = MeteredAs<Setup::unlimited>;
using MeteredPaced = MeteredAs<Setup::paced>;

// The same through the cache: each request after the first is revalidated.
class Revalidated {
 public:
  Revalidated()
      : meter_({.sink = [](std::string_view) {}}),
        transport_([this] {
          forgemeter::TransportOptions o = metered_options(meter_, Setup::usual);
          o.cache = {.max_bytes = 1u << 20};
          return o;
        }()),
        req_{.url = bench_url(), .lane = forgemeter::Lane{"bench"}, .installation = 101, .bearer = "inst-101"} {
    transport_.perform(req_);  // the 200 that is kept
  }
  [[gnu::noinline]] bool once() {
    auto res = transport_.perform(req_);
    benchmark::DoNotOptimize(res.body.data());
    return res.ok() && res.status == 200 && res.revalidated;
  }

 private:
  forgemeter::Meter meter_;
  forgemeter::Transport transport_;
  forgemeter::Request req_;
};

forgemeter::Headers canned_headers(std::initializer_list<std::string_view> lines) {
  forgemeter::Headers h;
  for (auto l : lines) h.add_field(l);
  h.add_line("\r\n");
  return h;
}

// The cache's hit path with the wire taken out: `send` answers 200 once, then 304.
void BM_CacheHitPath(benchmark::State& state) {
  forgemeter::Meter meter({.sink = [](std::string_view) {}});
  forgemeter::transport_detail::CacheFront cache({.max_bytes = 1u << 20}, meter, forgemeter::system_clock());
  forgemeter::Response full, not_modified;
  full.status = 200;
  full.headers =
      canned_headers({"HTTP/1.1 200 OK\r\n", "Content-Type: application/json\r\n", "ETag: \"0123456789abcdef\"\r\n",
                      "X-RateLimit-Remaining: 4999\r\n", "X-RateLimit-Limit: 5000\r\n"});
  full.body.assign(static_cast<std::size_t>(state.range(0)), 'b');
  not_modified.status = 304;
  not_modified.headers = canned_headers({"HTTP/1.1 304 Not Modified\r\n", "ETag: \"0123456789abcdef\"\r\n",
                                         "X-RateLimit-Remaining: 4999\r\n", "X-RateLimit-Limit: 5000\r\n"});
  const forgemeter::Request req{.url = bench_url(), .installation = 101, .bearer = "inst-101"};
  auto send = [&](const forgemeter::Request& r) {
    forgemeter::Response res = r.headers.empty() ? full : not_modified;
    res.hops.push_back({.url = r.url, .host = "api.forge.test", .status = res.status});
    return res;
  };
  cache.perform(req, send);
  for (auto _ : state) {
    auto res = cache.perform(req, send);
    if (!res.revalidated) state.SkipWithError("not revalidated");
    benchmark::DoNotOptimize(res.body.data());
  }
  state.SetItemsProcessed(state.iterations());
}

template <class Client>
void BM_Alone(benchmark::State& state) {
  Client client;
  for (auto _ : state)
    if (!client.once()) state.SkipWithError("perform failed");
  state.SetItemsProcessed(state.iterations());
}

void BM_Paired(benchmark::State& state) {
  Bare bare;
  Metered metered;
  constexpr int kBatch = 200;
  Steady::duration bare_time{}, metered_time{};
  std::chrono::nanoseconds bare_cpu{}, metered_cpu{};
  std::int64_t n = 0;
  for (auto _ : state) {
    const auto t0 = Steady::now();
    const auto c0 = thread_cpu();
    for (int i = 0; i < kBatch; ++i)
      if (!bare.once()) state.SkipWithError("bare perform failed");
    const auto t1 = Steady::now();
    const auto c1 = thread_cpu();
    for (int i = 0; i < kBatch; ++i)
      if (!metered.once()) state.SkipWithError("metered perform failed");
    const auto t2 = Steady::now();
    const auto c2 = thread_cpu();
    bare_time += t1 - t0;
    metered_time += t2 - t1;
    bare_cpu += c1 - c0;
    metered_cpu += c2 - c1;
    n += kBatch;
  }
  const double bare_rps = static_cast<double>(n) / std::chrono::duration<double>(bare_time).count();
  const double metered_rps = static_cast<double>(n) / std::chrono::duration<double>(metered_time).count();
  state.counters["bare_rps"] = bare_rps;
  state.counters["metered_rps"] = metered_rps;
  state.counters["ratio"] = metered_rps / bare_rps;
  state.counters["bare_cpu_us"] = static_cast<double>(bare_cpu.count()) / 1e3 / static_cast<double>(n);
  state.counters["metered_cpu_us"] = static_cast<double>(metered_cpu.count()) / 1e3 / static_cast<double>(n);
}

void BM_Steps(benchmark::State& state) {
  Bare bare, with_counter, with_reset;
  Metered metered;
  forgemeter::Meter meter({.sink = [](std::string_view) {}});
  const forgemeter::TransportOptions options{.meter = &meter};
  constexpr int kBlock = 500;
  std::chrono::nanoseconds cpu[4]{};
  std::int64_t n = 0;
  for (auto _ : state) {
    auto c = thread_cpu();
    auto lap = [&](int i) {
      const auto now = thread_cpu();
      cpu[i] += now - c;
      c = now;
    };
    for (int i = 0; i < kBlock; ++i) bare.once();
    lap(0);
    for (int i = 0; i < kBlock; ++i) with_counter.counted(meter);
    lap(1);
    for (int i = 0; i < kBlock; ++i) with_reset.reset_each_time(options);
    lap(2);
    for (int i = 0; i < kBlock; ++i) metered.once();
    lap(3);
    n += kBlock;
  }
  const char* names[] = {"bare_cpu_us", "counter_cpu_us", "reset_cpu_us", "transport_cpu_us"};
  for (int i = 0; i < 4; ++i)
    state.counters[names[i]] = static_cast<double>(cpu[i].count()) / 1e3 / static_cast<double>(n);
}

}  // namespace

BENCHMARK(BM_Steps)->Iterations(6)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Paired)->MinTime(3.0)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_Alone, Bare)->Name("BM_BareCurl")->MinTime(1.0)->UseRealTime();
BENCHMARK_TEMPLATE(BM_Alone, Metered)->Name("BM_MeteredTransport")->MinTime(1.0)->UseRealTime();

// Fixed counts for `valgrind --tool=callgrind` (instructions per request; see bench/transport.md).
BENCHMARK_TEMPLATE(BM_Alone, Bare)->Name("BM_FixedBare")->Iterations(2000)->UseRealTime();
BENCHMARK_TEMPLATE(BM_Alone, Metered)->Name("BM_FixedMetered")->Iterations(2000)->UseRealTime();
BENCHMARK_TEMPLATE(BM_Alone, MeteredUnlimited)->Name("BM_FixedMeteredUnlimited")->Iterations(2000)->UseRealTime();
BENCHMARK_TEMPLATE(BM_Alone, MeteredPaced)->Name("BM_FixedMeteredPaced")->Iterations(2000)->UseRealTime();
BENCHMARK_TEMPLATE(BM_Alone, BareWithTimeouts)->Name("BM_FixedBareTimeouts")->Iterations(2000)->UseRealTime();
BENCHMARK_TEMPLATE(BM_Alone, Revalidated)->Name("BM_FixedRevalidated")->Iterations(2000)->UseRealTime();
// The cache's own work per revalidated request, a 1 KB and a 64 KB body.
BENCHMARK(BM_CacheHitPath)->Arg(1024)->Arg(64 * 1024);

BENCHMARK_MAIN();
