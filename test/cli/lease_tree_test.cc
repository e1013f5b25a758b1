// `lease run`: CMD's whole process tree is the command. Real forgemeter
// processes on real PostgreSQL; each CMD is `bash -c` around a chain of
// heartbeating workers (test/supervise/tree_worker.cc: a grandchild that forks a worker,
// slow to exit after SIGTERM). Every worker stamps CLOCK_MONOTONIC into a file
// of its own; a tree's last stamp must come before the next term's first,
// and no worker may outlive its forgemeter.
//
// Margins are stated where they are checked; the machine may be loaded (2
// shared cores), so "within a few ms" is checked against 250 ms and the
// measured value printed.
#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <set>

#include "support/pg_env.h"
#include "support/pg_instance.h"
#include "tree_fleet.h"

using namespace fmtest;
using namespace std::chrono;

namespace {

double ms(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }
std::int64_t ns(milliseconds d) { return duration_cast<nanoseconds>(d).count(); }

// The next term's tree starts after every stamp of the last one.
void check_no_overlap(const std::map<pid_t, Beats>& before, const std::map<pid_t, Beats>& after) {
  const std::int64_t gap = earliest_beat(after) - latest_beat(before);
  MESSAGE("the next term's first heartbeat came " << ms(gap) << " ms after the last one of the tree before it");
  CHECK(gap > 0);
}

const milliseconds kElect = kTreeTtl + seconds(10);  // TTL + retry + process start-up on a loaded machine

}  // namespace

FM_SUITE_PG_TEST(
    "SIGKILL of forgemeter: its whole tree (shell, grandchild, worker) is gone within ms, before the next term") {
  TreeFleet fleet(*pg);
  Candidate& a = fleet.start("a", kChain);
  REQUIRE(fleet.await_workers(a, 3, kElect));
  Candidate& b = fleet.start("b", kChain);

  const std::int64_t killed = mono_ns();
  kill(a.proc.pid, SIGKILL);
  auto tree = a.beats();
  REQUIRE(tree.size() == 3);
  REQUIRE(poll_ms([&] { return alive_count(tree) == 0; }, seconds(5)));
  const std::int64_t gone = mono_ns();
  MESSAGE("every worker of the SIGKILLed forgemeter's tree was gone " << ms(gone - killed) << " ms after the SIGKILL");
  CHECK(ms(gone - killed) < 250);  // "a few ms"; the next candidate could take the lease only after TTL − T/6
  CHECK(fleet.wait(a, seconds(5)) == 128 + SIGKILL);
  tree = a.beats();
  CHECK(latest_beat(tree) < gone);

  REQUIRE(fleet.await_workers(b, 3, kElect));
  check_no_overlap(tree, b.beats());
}

FM_SUITE_PG_TEST(
    "SIGTERM, SIGINT or SIGHUP to forgemeter: the tree gets SIGTERM, SIGKILL after the grace; the lease goes only once "
    "none of "
    "it is left") {
  int sig = SIGTERM;
  SUBCASE("SIGTERM") {}
  SUBCASE("SIGINT (a Ctrl-C reaches forgemeter's group, not the tree's)") { sig = SIGINT; }
  SUBCASE("SIGHUP (its terminal or ssh session closed)") { sig = SIGHUP; }
  TreeFleet fleet(*pg);
  Candidate& a = fleet.start("a", kChain);
  REQUIRE(fleet.await_workers(a, 3, kElect));
  Candidate& b = fleet.start("b", kChain);

  const std::int64_t termed = mono_ns();
  kill(a.proc.pid, sig);
  CHECK(fleet.wait(a, seconds(10)) == 128 + SIGTERM);  // bash's own status: it died of the tree's SIGTERM
  auto tree = a.beats();
  CHECK(alive_count(tree) == 0);  // nothing survives its forgemeter
  std::int64_t lingered = 0;
  for (const auto& [pid, beats] : tree) {
    CHECK_MESSAGE(beats.term.has_value(), "worker " << pid << " got no SIGTERM");
    if (beats.term) lingered = std::max(lingered, beats.last - *beats.term);
  }
  // W2 works on through the grace after SIGTERM, then SIGKILL ends it: its
  // last stamp lies within [grace − 100 ms, grace + 250 ms] of the SIGTERM.
  MESSAGE("the slow worker stamped for " << ms(lingered) << " ms after its SIGTERM (grace 500 ms)");
  CHECK(lingered >= ns(kTreeGrace - milliseconds(100)));
  CHECK(latest_beat(tree) - termed <= ns(kTreeGrace + milliseconds(250)));

  REQUIRE(fleet.await_workers(b, 3, kElect));
  check_no_overlap(tree, b.beats());
}

FM_SUITE_PG_TEST(
    "forgemeter stalled (SIGSTOP) past its TTL while another campaigns: the sentinel SIGKILLs its tree at D, before "
    "the successor's tree starts") {
  TreeFleet fleet(*pg);
  Candidate& a = fleet.start("a", kChain);
  REQUIRE(fleet.await_workers(a, 3, kElect));
  Candidate& b = fleet.start("b", kChain);

  kill(a.proc.pid, SIGSTOP);  // forgemeter alone: its tree runs on, and so does its sentinel
  const std::int64_t stopped = mono_ns();
  // The last renewal proven was sent at S < `stopped`: D = S + 2.5 s; the store lets the
  // lease go at S + 3 s, so b's tree can start no earlier than T/6 = 500 ms after D.
  REQUIRE(fleet.await_workers(b, 3, kElect));
  REQUIRE(poll_ms([&] { return mono_ns() - stopped > ns(kTreeTtl + milliseconds(500)); }, kElect));  // a stall > TTL
  auto tree = a.beats();
  CHECK(alive_count(tree) == 0);  // gone while forgemeter is still stopped
  kill(a.proc.pid, SIGCONT);
  CHECK(fleet.wait(a, seconds(10)) == 1);  // the term ended under CMD
  tree = a.beats();
  MESSAGE("the stalled holder's tree beat last " << ms(latest_beat(tree) - stopped)
                                                 << " ms after forgemeter was stopped (D < 2500 ms)");
  CHECK(latest_beat(tree) - stopped <= ns(kTreeStepDown + milliseconds(100)));  // 100 ms for the kill
  for (const auto& [pid, beats] : tree) CHECK_MESSAGE(!beats.term.has_value(), "worker " << pid << " got SIGTERM");
  check_no_overlap(tree, b.beats());
  CHECK(read_file(a.proc.err_path).find("SIGKILLed at the term's deadline") != std::string::npos);
}

FM_SUITE_PG_TEST(
    "two `lease run --owner web-1`: the second is told the owner is in use and never runs CMD while the first does") {
  TreeFleet fleet(*pg);
  Candidate& a = fleet.start("web-1", kChain);
  REQUIRE(fleet.await_workers(a, 3, kElect));
  Candidate& b = fleet.start("web-1", kChain);
  REQUIRE(poll_ms(
      [&] {
        return read_file(b.proc.err_path).find("owner \"web-1\" is already in use by another campaign (web-1#") !=
               std::string::npos;
      },
      kElect));
  // Refused at every retry (1 s): two and a half retries without a heartbeat of its CMD.
  CHECK_FALSE(poll_ms([&] { return !b.beats().empty(); }, milliseconds(2500)));

  kill(a.proc.pid, SIGTERM);                      // a releases once its tree is gone; b takes over
  CHECK(fleet.wait(a, kElect) == 128 + SIGTERM);  // bash's own status: it died of the tree's SIGTERM
  auto tree = a.beats();
  CHECK(alive_count(tree) == 0);
  REQUIRE(fleet.await_workers(b, 3, kElect));
  check_no_overlap(tree, b.beats());
}

FM_SUITE_PG_TEST("CMD exits while the workers it started run: they are stopped before the lease is released") {
  TreeFleet fleet(*pg);
  // W0 lingers 200 ms; W1 forks W2 and exits at once (W2 becomes an orphan);
  // bash exits 3 once the test creates "go".
  Candidate& a = fleet.start(
      "a", "\"$0\" \"$1\" linger=200 exit linger=2000 & while [ ! -e \"$1/go\" ]; do sleep 0.01; done; exit 3");
  REQUIRE(fleet.await_workers(a, 3, kElect, false));
  REQUIRE(fleet.await_workers(a, 2, seconds(5)));
  Candidate& b = fleet.start("b", kChain);

  const std::int64_t go = mono_ns();
  write_file(a.dir + "/go", "");
  CHECK(fleet.wait(a, seconds(10)) == 3);  // CMD's status, once the rest of its tree is gone
  auto tree = a.beats();
  CHECK(alive_count(tree) == 0);
  CHECK(termed_count(tree) == 2);                                       // W0 and the orphan W2 (W1 had exited)
  CHECK(latest_beat(tree) - go <= ns(kTreeGrace + milliseconds(500)));  // bash's exit is seen within its 10 ms poll

  REQUIRE(fleet.await_workers(b, 3, kElect));
  check_no_overlap(tree, b.beats());
}

FM_SUITE_PG_TEST(
    "a worker that leaves CMD's process group (setsid) and is orphaned is still stopped while forgemeter runs") {
  TreeFleet fleet(*pg);
  // W0 forks W1 and exits; W1 calls setsid() (a new session and group) and
  // forks W2; bash exits 0 at once. forgemeter, the subreaper, inherits W1.
  Candidate& a = fleet.start("a", "\"$0\" \"$1\" exit setsid,linger=300 linger=300; true");
  REQUIRE(fleet.await_workers(a, 1, kElect, false));  // a holds the lease before b campaigns
  Candidate& b = fleet.start("b", kChain);
  CHECK(fleet.wait(a, kElect) == 0);
  auto tree = a.beats();
  REQUIRE(tree.size() == 3);
  CHECK(alive_count(tree) == 0);
  CHECK(termed_count(tree) == 2);  // W1 and W2 got SIGTERM (W0 had exited)

  REQUIRE(fleet.await_workers(b, 3, kElect));
  check_no_overlap(tree, b.beats());
}

TEST_CASE(
    "the store stops: the holder's tree is gone by the step-down deadline, the next term starts once the store is "
    "back") {
  if (fmtest::pg_skip_requested()) return;
  fmtest::PrivatePg server;
  TreeFleet fleet(server.conninfo());
  Candidate& a = fleet.start("a", kChain);
  REQUIRE(fleet.await_workers(a, 3, kElect));
  Candidate& b = fleet.start("b", kChain);

  server.stop();  // sessions terminated; no renewal can be granted from here on
  const std::int64_t stopped = mono_ns();
  CHECK(fleet.wait(a, seconds(15)) == 1);  // the term ended under CMD
  auto tree = a.beats();
  CHECK(alive_count(tree) == 0);
  // The last granted renewal was sent at S < `stopped`: the tree got SIGTERM
  // at S + 2.5 s − 500 ms and SIGKILL at D = S + 2.5 s; 100 ms margin for the kill.
  MESSAGE("the tree's last heartbeat came " << ms(latest_beat(tree) - stopped)
                                            << " ms after the store stopped (D ≤ 2500 ms)");
  CHECK(latest_beat(tree) - stopped <= ns(kTreeStepDown + milliseconds(100)));
  for (const auto& [pid, beats] : tree) CHECK_MESSAGE(beats.term.has_value(), "worker " << pid << " got no SIGTERM");

  server.start();
  REQUIRE(fleet.await_workers(b, 3, kElect));
  check_no_overlap(tree, b.beats());
}

FM_SUITE_PG_TEST("a second SIGTERM exits at once while the release waits on a row lock, leaving the lease to expire") {
  TreeFleet fleet(*pg);
  Candidate& a = fleet.start("a", kChain);
  REQUIRE(fleet.await_workers(a, 3, kElect));
  PgSession locker(*pg), watcher(*pg);
  REQUIRE(locker.exec("BEGIN"));
  REQUIRE(locker.exec("SELECT * FROM forgemeter_leases WHERE name = $1 FOR UPDATE", {fleet.name()}));
  // a's sessions waiting on the lock (their text is the store's PREPAREs: pids tell the statements apart).
  const auto waiting = [&] {
    std::set<std::string> pids;
    auto r = watcher.exec(
        "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid NOT IN (pg_backend_pid(), $1)",
        {std::to_string(locker.backend_pid())});
    if (r)
      for (auto& row : *r) pids.insert(row[0].value_or(""));
    return pids;
  };
  std::set<std::string> renewal;
  REQUIRE(poll_ms([&] { return !(renewal = waiting()).empty(); }, seconds(5)));  // renewals come every T/3
  kill(a.proc.pid, SIGTERM);
  // The tree is stopped (the grace), then the release waits on the lock.
  REQUIRE(poll_ms(
      [&] {
        for (const auto& pid : waiting())
          if (!renewal.count(pid)) return true;
        return false;
      },
      seconds(10)));
  const std::int64_t second = mono_ns();
  kill(a.proc.pid, SIGTERM);
  CHECK(fleet.wait(a, seconds(5)) == 128 + SIGTERM);
  const std::int64_t exited = mono_ns();
  // Without the second signal the release would wait up to T/3 = 1 s for the lock.
  MESSAGE("forgemeter exited " << ms(exited - second) << " ms after the second SIGTERM (T/3 = 1000 ms)");
  CHECK(exited - second < ns(milliseconds(500)));
  auto held = locker.exec("SELECT owner FROM forgemeter_leases WHERE name = $1", {fleet.name()});
  REQUIRE(held);
  CHECK((*held).at(0).at(0).value_or("").rfind("a", 0) == 0);  // not released: the lease is left to expire
  REQUIRE(locker.exec("ROLLBACK"));
}
