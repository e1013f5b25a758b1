// `forgemeter lease resign NAME` between `lease run` processes on PostgreSQL,
// TTL 9 s (retry 3 s): the holder's term ends at once (woken by NOTIFY), its
// CMD gets SIGTERM and exits, the lease is released and the waiting
// candidate's CMD starts; the resigned process stays up, out of the campaign
// for one TTL. 5 moves, timed from the `lease resign` invocation (its process
// start and store check included) to the successor's CMD starting, never two
// CMDs at once (both CMDs stamp one clock); also from the command's answer
// (the request landed), as the one-shot command's own start-up (a process,
// a store check, a connection: ~220 ms here, as `lease status`) is not the
// move's. The figures are printed against the target (250 ms); the
// test asserts the wake-up moved it: each
// within 1 s, where a renewal every 3 s would take 1.5 s on average — margin
// for a 2-core machine under a load of 8-10 (starting CMD alone: 70-170 ms,
// lease_handover_test.cc).
#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "command_marks.h"
#include "core/components.h"
#include "forgemeter_bin.h"
#include "support/eventually.h"
#include "support/skips.h"
#if FORGEMETER_HAS_POSTGRES
#include "support/pg_env.h"
#endif

using namespace fmtest;
using namespace std::chrono;

namespace {

std::int64_t wall_ns() { return duration_cast<nanoseconds>(system_clock::now().time_since_epoch()).count(); }

}  // namespace

#if FORGEMETER_HAS_POSTGRES
FM_SUITE_PG_TEST(
    "lease resign on PostgreSQL, TTL 9 s: leadership moves to the waiting lease run at once, never overlapping") {
  TempDir dir;
  const std::string log = dir.file("marks");
  const std::string name = "resign-" + std::to_string(getpid());
  int spawned = 0;
  auto start = [&] {
    const std::string owner = "p" + std::to_string(spawned++);
    return spawn_process({forgemeter_bin(), "lease", "run", "--store", *pg, "--name", name, "--owner", owner, "--ttl",
                          "9s", "--retry", "3s", "--", "sh", "-c", kMarkingCmd, "sh", log},
                         dir.file(owner + ".out"), dir.file(owner + ".err"));
  };
  Spawned holder = start();
  REQUIRE(eventually([&] { return ups(log) == 1; }, seconds(20)));
  std::vector<double> took, moved;  // from the invocation; from its answer (the request landed)
  std::ostringstream parts;         // per move: the request answered, the holder's CMD down, the successor's up
  for (int i = 0; i < 5; ++i) {
    Spawned candidate = start();
    REQUIRE(eventually([&] { return sockets(candidate.pid) >= 2; }, seconds(20)));
    const std::int64_t asked = wall_ns();
    const auto r = run_process({forgemeter_bin(), "lease", "resign", "--store", *pg, name});
    const std::int64_t answered = wall_ns();
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("asked p" + std::to_string(i) + " to step down (term " + std::to_string(i + 1) + ")") !=
          std::string::npos);
    REQUIRE(eventually([&] { return ups(log) == static_cast<std::size_t>(i) + 2; }, seconds(20)));
    const auto m = marks(log);
    const Mark& next = m.back();
    const Mark& down = m.at(m.size() - 2);
    CHECK(down.kind == "down");
    CHECK(down.owner == "p" + std::to_string(i));
    CHECK(next.kind == "up");
    CHECK(next.owner == "p" + std::to_string(i + 1));
    CHECK(next.ns > down.ns);  // never two CMDs at once
    took.push_back(static_cast<double>(next.ns - asked) / 1e6);
    moved.push_back(static_cast<double>(next.ns - answered) / 1e6);
    parts << (answered - asked) / 1'000'000 << "/" << (down.ns - asked) / 1'000'000 << "/"
          << (next.ns - asked) / 1'000'000 << " ";
    // The resigned process stays, out of the campaign: SIGTERM ends it as before any term.
    CHECK(kill(holder.pid, 0) == 0);
    CHECK(read_file(holder.err_path).find("p" + std::to_string(i) + " resigned (term " + std::to_string(i + 1)) !=
          std::string::npos);
    kill(holder.pid, SIGTERM);
    CHECK(wait_exit(holder.pid, seconds(20)) == 128 + SIGTERM);
    holder = candidate;
  }
  kill(holder.pid, SIGTERM);
  CHECK(wait_exit(holder.pid, seconds(20)) == 0);
  std::vector<double> sorted = took;
  std::sort(sorted.begin(), sorted.end());
  std::sort(moved.begin(), moved.end());
  MESSAGE("5 resigns, lease resign invoked -> next CMD up: median "
          << sorted[2] << " ms, worst " << sorted.back() << " ms; its answer -> next CMD up: median " << moved[2]
          << " ms, worst " << moved.back() << " ms (target: 250 ms"
          << std::string(moved.back() <= 250 ? ", met" : ", not met on this machine now")
          << "); each, from the invocation, answered/CMD down/next CMD up in ms: " << parts.str());
  CHECK(sorted.back() <= 1000);

  // A free lease: nothing to ask. A hostile name is refused as `lease run`
  // refuses it (exit 2), reaching the terminal escaped.
  const auto free = run_process({forgemeter_bin(), "lease", "resign", "--store", *pg, "never-taken"});
  CHECK(free.exit_code == 0);
  CHECK(free.out.find("lease \"never-taken\": free (term 0): nobody to ask") != std::string::npos);
  const auto hostile = run_process({forgemeter_bin(), "lease", "resign", "--store", *pg, "never-\x1b[31mtaken"});
  CHECK(hostile.exit_code == 2);
  CHECK(hostile.out.empty());
  CHECK(hostile.err.find("lease names follow the lane rule") != std::string::npos);
  CHECK(hostile.err.find('\x1b') == std::string::npos);
}
#endif
