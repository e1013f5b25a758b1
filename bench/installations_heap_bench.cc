// Heap held per installation by a Meter and a Transport: a sweep of GETs
// charged to N distinct installations (one each), against the same sweep
// charged to none, same run, loopback forge. What a GitHub App with many
// installations costs in memory, and what is given back once they idle.
//
//   build/<dir>/bench/installations_heap_bench [N=10000]
//
// Three sweeps, each in a child process of its own forked before any thread,
// each with its own forge, Meter (lines discarded) and Transport on a
// ManualClock: `none` (installation 0, the baseline), `limits off` (charged,
// SecondaryLimitOptions::off()) and `limits on` (charged, GitHub's defaults).
// Every request carries the bearer `inst-<i>`, so the forge keeps the same
// per-installation state in all three; only what forgemeter keeps differs.
// After 1000 warm-up GETs (charged to none) the heap in use (mallinfo2: uordblks + hblkhd, all
// arenas) is read before the sweep, after it, and once more after the clock
// moves 61 s and one more installation's GET lets the secondary limits forget
// the idle ones (their per-minute windows empty). Printed: each sweep's
// growth, and per installation the meter's and load board's share (limits
// off − none) and the secondary limits' share (limits on − limits off).
#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "forgemeter/meter.h"
#include "forgemeter/testing/manual_clock.h"
#include "forgemeter/transport.h"
#include "in_child.h"
#include "testforge/forge.h"

namespace {

namespace tf = forgemeter::testforge;
using namespace std::chrono_literals;

enum class Mode : int { none, limits_off, limits_on };
constexpr const char* kModeNames[] = {"none", "limits off", "limits on"};

long heap_in_use() {
  const struct mallinfo2 m = ::mallinfo2();
  return static_cast<long>(m.uordblks + m.hblkhd);
}

struct Sweep {
  long before = 0, after = 0, idle = 0;  // heap in use, bytes
  long failed = 0;                       // answers other than 200
};

Sweep sweep(Mode mode, long installations) {
  tf::Forge forge({.installation_limit = 1u << 30, .threads = 8, .record_limit = 0});
  forgemeter::ManualClock clock(forgemeter::UtcMillis{std::chrono::hours(24 * 20'000) + 30min});
  forgemeter::Meter meter({.clock = &clock, .sink = [](std::string_view) {}});
  forgemeter::TransportOptions options{.meter = &meter, .resolve = forge.resolve()};
  if (mode == Mode::limits_off) options.rate_limits.secondary_limits = forgemeter::SecondaryLimitOptions::off();
  forgemeter::Transport transport(std::move(options));
  forgemeter::Request req{.url = forge.url("api.forge.test", "/repos/o/r")};
  // Installation i's GET (0: charged to none in every mode; the warm-up's, so
  // that the clock, which does not move, never holds it at a per-minute limit).
  const auto send = [&](long i) {
    req.installation = mode == Mode::none ? 0 : static_cast<std::uint64_t>(i);
    req.bearer = "inst-" + std::to_string(i);
    return transport.perform(req).status == 200 ? 0 : 1;
  };
  Sweep s;
  for (int i = 0; i < 1000; ++i) s.failed += send(0);
  s.before = heap_in_use();
  for (long i = 1; i <= installations; ++i) s.failed += send(i);
  s.after = heap_in_use();
  clock.advance(61s);
  s.failed += send(installations + 1);
  s.idle = heap_in_use();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 10'000;
  if (n <= 0) {
    std::fprintf(stderr, "usage: installations_heap_bench [N>0]\n");
    return 2;
  }
  Sweep s[3];
  for (int m = 0; m < 3; ++m)
    s[m] = fmbench::in_child<Sweep>(kModeNames[m], [&] { return sweep(static_cast<Mode>(m), n); });
  const auto kib = [](long bytes) { return static_cast<double>(bytes) / 1024.0; };
  std::printf("%ld installations, one GET each\n", n);
  std::printf("%-10s %14s %14s %16s %8s\n", "sweep", "growth KiB", "per inst. B", "61 s idle: KiB", "non-200");
  for (int m = 0; m < 3; ++m)
    std::printf("%-10s %14.1f %14.1f %16.1f %8ld\n", kModeNames[m], kib(s[m].after - s[m].before),
                static_cast<double>(s[m].after - s[m].before) / static_cast<double>(n), kib(s[m].idle - s[m].before),
                s[m].failed);
  const auto per = [&](int a, int b, bool idle) {
    const long ga = (idle ? s[a].idle : s[a].after) - s[a].before, gb = (idle ? s[b].idle : s[b].after) - s[b].before;
    return static_cast<double>(ga - gb) / static_cast<double>(n);
  };
  std::printf(
      "per installation: meter + load board %.0f B (%.0f B after 61 s idle), secondary limits %.0f B (%.0f B)\n",
      per(1, 0, false), per(1, 0, true), per(2, 1, false), per(2, 1, true));
  return s[0].failed + s[1].failed + s[2].failed == 0 ? 0 : 1;
}
