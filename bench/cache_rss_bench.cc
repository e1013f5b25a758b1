// Peak RSS growth of a sweep of 100 000 distinct URLs through a Transport
// whose cache is bounded to 16 MiB, against the same sweep with the cache
// off, same run, loopback forge. The promise: memory stays flat over a sweep of 100 000
// distinct URLs (the cache's bound holds, whatever the sweep's length).
//
//   build/<dir>/bench/cache_rss_bench [URLS=100000]
//
// Each sweep runs in a child process of its own, forked before any thread
// (so one sweep's peak cannot hide the other's), which starts its own forge,
// Meter (lines discarded) and Transport, sends 1000 GETs of one URL to warm
// up (connection, pools, allocator arenas), reads VmHWM (the peak resident
// set) from /proc/self/status, sweeps GET /repos/o/r/pulls/<i> for i below
// URLS with a bearer (so every answer is a 200 with an ETag: a keepable
// one), and reads VmHWM again. Growth = after - before; the forge's own
// memory (same in both sweeps) is in both. The cache has max_entries
// 1 000 000, so its byte bound is the one that holds. Printed: each sweep's
// growth, the cache's entries and bytes at the end, the ratio on/off and the
// difference set against the 16 MiB bound.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "forgemeter/meter.h"
#include "forgemeter/transport.h"
#include "in_child.h"
#include "testforge/forge.h"

namespace {

namespace tf = forgemeter::testforge;

constexpr std::size_t kBound = 16u << 20;

// A field of /proc/self/status in kB (VmHWM, VmRSS), or -1.
long status_kb(const std::string& field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(field + ":", 0) == 0) return std::strtol(line.c_str() + field.size() + 1, nullptr, 10);
  return -1;
}

struct Sweep {
  long before_kb = 0, after_kb = 0;  // VmHWM
  long failed = 0;                   // answers other than 200
  unsigned long entries = 0, bytes = 0;
  double seconds = 0;
};

Sweep sweep(bool cached, long urls) {
  tf::Forge forge({.installation_limit = 1u << 30, .threads = 8, .record_limit = 0});
  forgemeter::Meter meter({.sink = [](std::string_view) {}});
  forgemeter::TransportOptions options{.meter = &meter, .resolve = forge.resolve()};
  // One installation's 100 000 GETs would wait for GitHub's 900 REST points a
  // minute (the Transport's default secondary limits): memory is measured, not that.
  options.rate_limits.secondary_limits = forgemeter::SecondaryLimitOptions::off();
  if (cached) options.cache = {.max_bytes = kBound, .max_entries = 1'000'000, .max_entry_bytes = 1u << 20};
  forgemeter::Transport transport(std::move(options));
  forgemeter::Request req{
      .url = forge.url("api.forge.test", "/repos/o/r/pulls/0"), .installation = 101, .bearer = "inst-101"};
  Sweep s;
  for (int i = 0; i < 1000; ++i) s.failed += transport.perform(req).status != 200 && i == 0;
  s.before_kb = status_kb("VmHWM");
  const auto start = std::chrono::steady_clock::now();
  for (long i = 1; i <= urls; ++i) {
    req.url = forge.url("api.forge.test", "/repos/o/r/pulls/" + std::to_string(i));
    s.failed += transport.perform(req).status != 200;
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  s.after_kb = status_kb("VmHWM");
  const auto stats = transport.cache_figures();
  s.entries = stats.entries;
  s.bytes = stats.bytes;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const long urls = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 100'000;
  const Sweep off = fmbench::in_child<Sweep>("uncached sweep", [&] { return sweep(false, urls); });
  const Sweep on = fmbench::in_child<Sweep>("cached sweep", [&] { return sweep(true, urls); });
  const auto mib = [](long kb) { return static_cast<double>(kb) / 1024.0; };
  std::printf("%ld distinct URLs, cache bound %zu MiB\n", urls, kBound >> 20);
  std::printf("%-10s %12s %12s %12s %10s %10s %8s %7s\n", "sweep", "VmHWM before", "VmHWM after", "growth MiB",
              "entries", "cache MiB", "seconds", "non-200");
  for (const auto& [name, s] : {std::pair{"cache off", off}, std::pair{"cache on", on}})
    std::printf("%-10s %12.1f %12.1f %12.1f %10lu %10.1f %8.1f %7ld\n", name, mib(s.before_kb), mib(s.after_kb),
                mib(s.after_kb - s.before_kb), s.entries, static_cast<double>(s.bytes) / (1 << 20), s.seconds,
                s.failed);
  const long grow_off = off.after_kb - off.before_kb, grow_on = on.after_kb - on.before_kb;
  std::printf("ratio (growth on / growth off): %.2f\n",
              grow_off > 0 ? static_cast<double>(grow_on) / static_cast<double>(grow_off) : 0.0);
  std::printf("difference: %.1f MiB = %.2f x the bound\n", mib(grow_on - grow_off),
              static_cast<double>(grow_on - grow_off) * 1024.0 / static_cast<double>(kBound));
  return off.failed + on.failed == 0 ? 0 : 1;
}
