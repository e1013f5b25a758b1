// EtcdStore latency against a local three-member etcd cluster (started here,
// as the tests start theirs: test/support/etcd_cluster.h), beside bare
// gateway calls to the same member over a keep-alive libcurl connection of
// the same kind: a `range` of one key (the baseline of a read) and a `put` of
// one key (the baseline of a write: a Raft round and an fsync on a quorum).
//
// The calls are INTERLEAVED in blocks of 20, 100 rounds, so a burst of load
// on this shared machine hits all kinds alike. Per kind: the median and p99
// in microseconds, and the ratio of the median to its baseline's: a
// candidate's refused poll and inspect against `range` (target <= 1.2), the
// holder's renew and re-acquire against `put` (target <= 1.5), and a change
// of hands (the previous holder's lease expired) against `put`.
//
// Then the clean-handover latency between two stores (bench/handovers.h), and
// the takeover after a leader kill, as a distribution over 5 clusters:
// a holder's store renews every 50 ms; the Raft leader is SIGKILLed; the
// figure is the time from the kill to the first renewal granted after it.
#include <benchmark/benchmark.h>
#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "forgemeter/etcd_store.h"
#include "handovers.h"
#include "lease/etcd/codec.h"
#include "support/etcd_cluster.h"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using forgemeter::LeaseState;
using forgemeter::LeaseStatus;

const forgemeter::WallTime t0{std::chrono::milliseconds(1'790'000'000'000)};
forgemeter::Deadline bound() { return forgemeter::Deadline::after(forgemeter::system_clock(), 5s); }
constexpr int kBlock = 20;

std::size_t discard(char*, std::size_t size, std::size_t n, void*) { return size * n; }

// A bare gateway call on a kept-alive connection of its own.
class Bare {
 public:
  explicit Bare(std::string endpoint) : endpoint_(std::move(endpoint)), h_(curl_easy_init()) {
    curl_easy_setopt(h_, CURLOPT_PROXY, "");
    curl_easy_setopt(h_, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h_, CURLOPT_WRITEFUNCTION, discard);
    headers_ = curl_slist_append(nullptr, "Content-Type: application/json");
    curl_easy_setopt(h_, CURLOPT_HTTPHEADER, headers_);
  }
  ~Bare() {
    curl_slist_free_all(headers_);
    curl_easy_cleanup(h_);
  }
  bool post(const std::string& path, const std::string& body) {
    const std::string url = endpoint_ + path;
    curl_easy_setopt(h_, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h_, CURLOPT_POSTFIELDS, body.c_str());
    long status = 0;
    const bool ok = curl_easy_perform(h_) == CURLE_OK;
    curl_easy_getinfo(h_, CURLINFO_RESPONSE_CODE, &status);
    return ok && status == 200;
  }

 private:
  std::string endpoint_;
  CURL* h_;
  curl_slist* headers_ = nullptr;
};

struct Kind {
  const char* name;
  const char* baseline;  // the kind its ratio is taken against ("" for a baseline)
  std::function<bool()> call;
  std::vector<double> us;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void BM_etcd_calls(benchmark::State& state) {
  fmtest::EtcdCluster cluster(3);
  auto o = forgemeter::EtcdStoreOptions::from_uri(cluster.uri("/bench/"));
  o.max_connections = 1;
  forgemeter::EtcdStore store(o);
  Bare bare(cluster.endpoint(0));  // the member the store talks to first, and keeps talking to
  store.acquire("held", "holder", t0, 1000h, bound());
  store.acquire("renew", "me", t0, 10s, bound());
  int i = 0, hands = 0;
  auto stamp = [&] { return t0 + std::chrono::milliseconds(i); };
  const std::string range = forgemeter::etcd::range_request(o.prefix + "held");
  const std::string put = R"({"key":")" + forgemeter::etcd::base64(o.prefix + "bare") + R"(","value":")" +
                          forgemeter::etcd::base64(R"({"holder":"x","expiry_ms":1,"term":1})") + R"("})";
  std::vector<Kind> kinds = {
      {"range", "", [&] { return bare.post("/v3/kv/range", range); }, {}},
      {"put", "", [&] { return bare.post("/v3/kv/put", put); }, {}},
      {"inspect", "range", [&] { return store.inspect("held", bound()).status == LeaseState::Status::held; }, {}},
      {"acquire_refused",
       "range",
       [&] { return store.acquire("held", "candidate", stamp(), 10s, bound()).status == LeaseStatus::refused; },
       {}},
      {"renew",
       "put",
       [&] { return store.renew("renew", "me", stamp(), 10s, bound()).status == LeaseStatus::granted; },
       {}},
      {"acquire_granted",
       "put",
       [&] { return store.acquire("renew", "me", stamp(), 10s, bound()).status == LeaseStatus::granted; },
       {}},
      {"change_of_hands",
       "put",
       [&] {  // a 1 ms lease taken at each call by the other owner, its predecessor's having expired
         const char* taker = ++hands % 2 ? "b" : "a";
         return store.acquire("hands", taker, stamp() + std::chrono::milliseconds(hands), 1ms, bound()).status ==
                LeaseStatus::granted;
       },
       {}},
  };
  for (auto _ : state) {
    double round = 0;
    for (auto& k : kinds)
      for (int b = 0; b < kBlock; ++b) {
        ++i;
        const auto start = Clock::now();
        if (!k.call()) {
          state.SkipWithError((std::string(k.name) + " failed").c_str());
          return;
        }
        const double d = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
        k.us.push_back(d);
        round += d;
      }
    state.SetIterationTime(round / 1e6);
  }
  std::fprintf(stderr, "%-18s %10s %10s %12s\n", "call", "median_us", "p99_us", "x_baseline");
  for (auto& k : kinds) {
    std::vector<double> s = k.us;
    std::sort(s.begin(), s.end());
    const double med = s[s.size() / 2], p99 = s[std::min(s.size() - 1, s.size() * 99 / 100)];
    double base = med;
    for (const auto& b : kinds)
      if (std::string(b.name) == k.baseline) base = median(b.us);
    state.counters[std::string(k.name) + "_med"] = med;
    state.counters[std::string(k.name) + "_x"] = med / base;
    std::fprintf(stderr, "%-18s %10.1f %10.1f %8.2f x %s\n", k.name, med, p99, med / base,
                 *k.baseline ? k.baseline : "(baseline)");
  }
}

// From a leader's SIGKILL to the first granted renewal after it, in ms.
double takeover_ms() {
  fmtest::EtcdCluster cluster(3);
  auto o = forgemeter::EtcdStoreOptions::from_uri(cluster.uri("/bench-kill/"));
  o.attempt_timeout = 300ms;
  forgemeter::EtcdStore store(o);
  const auto& clock = forgemeter::system_clock();
  store.acquire("sweep", "holder", clock.now(), 10s, bound());
  const int leader = cluster.leader();
  const auto killed = Clock::now();
  cluster.kill(leader);
  while (store.renew("sweep", "holder", clock.now(), 10s, bound()).status != LeaseStatus::granted)
    std::this_thread::sleep_for(50ms);
  return std::chrono::duration<double, std::milli>(Clock::now() - killed).count();
}

void BM_takeover_after_leader_kill(benchmark::State& state) {
  std::vector<double> ms;
  for (auto _ : state) {
    ms.push_back(takeover_ms());
    state.SetIterationTime(ms.back() / 1e3);
  }
  std::sort(ms.begin(), ms.end());
  std::fprintf(stderr, "renewal granted after a leader kill, ms over %zu clusters: min %.0f, median %.0f, max %.0f\n",
               ms.size(), ms.front(), ms[ms.size() / 2], ms.back());
  state.counters["median_ms"] = ms[ms.size() / 2];
}

}  // namespace

// Clean handovers between two stores (one process each would add only the
// process's own work) on a fresh three-member cluster.
void BM_etcd_handover(benchmark::State& state) {
  fmtest::EtcdCluster cluster(3);
  forgemeter::EtcdStore a(forgemeter::EtcdStoreOptions::from_uri(cluster.uri("/bench-handover/")));
  forgemeter::EtcdStore b(forgemeter::EtcdStoreOptions::from_uri(cluster.uri("/bench-handover/")));
  fmbench::handovers(state, a, b, "etcd (3 members)");
}

BENCHMARK(BM_etcd_calls)->Iterations(100)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_takeover_after_leader_kill)->Iterations(5)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_etcd_handover)->Iterations(1)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
