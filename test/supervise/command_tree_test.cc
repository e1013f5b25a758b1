// CommandTree and its sentinel, in process: real trees of heartbeating
// workers (tree_worker.cc stamps CLOCK_MONOTONIC into a file per process).
// What `lease run` builds on: the whole tree is signalled and reaped, a
// process that left the group is found, and the tree dies with its supervisor.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "supervise/command_tree.h"
#include "supervise/heartbeats.h"
#include "support/eventually.h"
#include "support/process.h"
#include "support/temp_files.h"

using forgemeter::supervise::CommandTree;
using forgemeter::supervise::find_program;
using forgemeter::supervise::StartError;
using namespace fmtest;
using namespace std::chrono;

namespace {

// A chain of workers: this spec for the first, each next one forked by the one before.
std::vector<std::string> chain(const TempDir& dir, std::vector<std::string> specs) {
  std::vector<std::string> argv{FM_TREE_WORKER, dir.path()};
  argv.insert(argv.end(), specs.begin(), specs.end());
  return argv;
}

// Waits until `n` workers have beaten; their beats.
std::map<pid_t, Beats> await_workers(const TempDir& dir, std::size_t n) {
  std::map<pid_t, Beats> beats;
  fmtest::eventually([&] { return (beats = read_heartbeats(dir.path())).size() >= n; });
  return beats;
}

// Waits (signalling nothing) until the tree is empty.
bool await_empty(CommandTree& tree, milliseconds timeout = seconds(10)) {
  const auto until = steady_clock::now() + timeout;
  while (!tree.empty()) {
    if (steady_clock::now() >= until) return false;
    tree.wait_for(milliseconds(10));
  }
  return true;
}

}  // namespace

TEST_CASE("the whole tree gets the signal, every process is reaped, CMD's status is kept") {
  TempDir dir;
  CommandTree tree(chain(dir, {"linger=0", "linger=0", "linger=100"}), {}, {});
  auto beats = await_workers(dir, 3);
  REQUIRE(beats.size() == 3);
  CHECK(beats.count(tree.pid()) == 1);  // CMD is the first worker
  CHECK_FALSE(tree.empty());
  tree.signal(SIGTERM);
  REQUIRE(await_empty(tree));
  beats = read_heartbeats(dir.path());
  for (const auto& [pid, b] : beats) CHECK_MESSAGE(b.term.has_value(), "worker " << pid << " got no SIGTERM");
  CHECK(alive_count(beats) == 0);
  CHECK(tree.status() == 0);  // the worker exits 0 on SIGTERM
  CHECK(tree.guarded());
}

TEST_CASE("the destructor SIGKILLs what is left of the tree and waits for it") {
  TempDir dir;
  std::map<pid_t, Beats> beats;
  {
    CommandTree tree(chain(dir, {"linger=60000", "linger=60000"}), {}, {});
    beats = await_workers(dir, 2);
    REQUIRE(beats.size() == 2);
  }
  CHECK(alive_count(beats) == 0);  // gone when the destructor returned: no polling
  for (const auto& [pid, b] : read_heartbeats(dir.path())) CHECK_FALSE(b.term.has_value());
}

TEST_CASE("CMD's exit code, or 128 + the signal that ended it") {
  const std::string sh = find_on_path("sh");
  REQUIRE_FALSE(sh.empty());
  {
    CommandTree tree({"sh", "-c", "exit 7"}, {}, {});
    REQUIRE(await_empty(tree));
    CHECK(tree.status() == 7);
  }
  {
    CommandTree tree({"sh", "-c", "kill -KILL $$"}, {}, {});
    REQUIRE(await_empty(tree));
    CHECK(tree.status() == 128 + SIGKILL);
  }
}

TEST_CASE("CMD's environment: extra variables added, named ones dropped") {
  TempDir dir;
  ::setenv("FM_SUPERVISE_DROPPED", "secret", 1);
  ::setenv("FM_SUPERVISE_KEPT", "kept", 1);
  const std::string out = dir.file("env");
  {
    CommandTree tree({"sh", "-c", "echo \"$FM_SUPERVISE_DROPPED|$FM_SUPERVISE_KEPT|$FM_SUPERVISE_ADDED\" > " + out},
                     {{"FM_SUPERVISE_ADDED", "added"}}, {"FM_SUPERVISE_DROPPED"});
    REQUIRE(await_empty(tree));
    CHECK(tree.status() == 0);
  }
  CHECK(read_file(out) == "|kept|added\n");
  ::unsetenv("FM_SUPERVISE_DROPPED");
  ::unsetenv("FM_SUPERVISE_KEPT");
}

TEST_CASE("a worker that left the group (setsid) and was orphaned is still signalled and reaped") {
  TempDir dir;
  // CMD forks a worker and exits; the worker leaves CMD's group and session.
  CommandTree tree(chain(dir, {"exit", "setsid,linger=0"}), {}, {});
  auto beats = await_workers(dir, 2);
  REQUIRE(beats.size() == 2);
  const auto cmd_gone = [&] {
    tree.wait_for(milliseconds(10));
    return tree.status().has_value();
  };
  REQUIRE(fmtest::eventually(cmd_gone));
  CHECK(tree.status() == 0);
  CHECK_FALSE(tree.empty());  // the orphan is this process's child now, outside CMD's group
  tree.signal(SIGTERM);
  REQUIRE(await_empty(tree));
  beats = read_heartbeats(dir.path());
  CHECK(alive_count(beats) == 0);
  CHECK(termed_count(beats) == 1);  // the orphan; CMD had exited by itself
}

TEST_CASE("wake() makes a wait in progress return at once") {
  TempDir dir;
  CommandTree tree(chain(dir, {"linger=0"}), {}, {});
  tree.wake();
  const auto t0 = steady_clock::now();
  tree.wait_for(seconds(30));
  CHECK(steady_clock::now() - t0 < seconds(10));
}

TEST_CASE("the sentinel SIGKILLs the tree's group when the supervisor is SIGKILLed") {
  TempDir dir;
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  // The supervisor: a child of this test that starts the tree, says so, and waits to be killed.
  const pid_t supervisor = ::fork();
  REQUIRE(supervisor >= 0);
  if (supervisor == 0) {
    ::close(ready[0]);
    try {
      CommandTree tree(chain(dir, {"linger=60000", "linger=60000", "linger=60000"}), {}, {});
      [[maybe_unused]] auto w = ::write(ready[1], "r", 1);
      for (;;) ::pause();
    } catch (...) {
    }
    ::_exit(1);
  }
  ::close(ready[1]);
  char byte = 0;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  ::close(ready[0]);
  auto beats = await_workers(dir, 3);
  REQUIRE(beats.size() == 3);
  ::kill(supervisor, SIGKILL);
  int st = 0;
  REQUIRE(::waitpid(supervisor, &st, 0) == supervisor);
  const auto killed = steady_clock::now();
  CHECK(fmtest::eventually([&] { return alive_count(beats) == 0; }, seconds(5)));
  MESSAGE("the tree was gone " << duration_cast<milliseconds>(steady_clock::now() - killed).count()
                               << " ms after its supervisor was SIGKILLed");
  // Orphans of the supervisor that came to this process (a subreaper since the tests above).
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

TEST_CASE("the sentinel SIGKILLs the group at the deadline on its own; guard_until() moves the deadline") {
  TempDir dir;
  // D 600 ms ahead; this process (the supervisor) signals nothing and does not even reap until the check.
  const auto d1 = steady_clock::now() + milliseconds(600);
  CommandTree tree(chain(dir, {"linger=60000", "linger=60000"}), {}, {}, d1);
  auto beats = await_workers(dir, 2);
  REQUIRE(beats.size() == 2);
  SUBCASE("the deadline holds") {}
  SUBCASE("a later deadline, told before the first passes") {
    const auto d2 = d1 + milliseconds(600);
    REQUIRE(tree.guard_until(d2));
    std::this_thread::sleep_until(d1 + milliseconds(200));  // a timing check: past D1, short of D2
    CHECK(alive_count(read_heartbeats(dir.path())) == 2);
    beats = read_heartbeats(dir.path());
    CHECK(latest_beat(beats) > duration_cast<nanoseconds>(d1.time_since_epoch()).count());
    REQUIRE(fmtest::eventually([&] { return alive_count(beats) == 0; }, seconds(10)));
    beats = read_heartbeats(dir.path());
    // SIGKILL, not SIGTERM: no worker stamped TERM; the last beat within 5 ms (a beat's period) + 100 ms of D2.
    MESSAGE("last beat " << (latest_beat(beats) - duration_cast<nanoseconds>(d2.time_since_epoch()).count()) / 1e6
                         << " ms after D2");
    CHECK(latest_beat(beats) <= duration_cast<nanoseconds>((d2 + milliseconds(100)).time_since_epoch()).count());
    CHECK(termed_count(beats) == 0);
    REQUIRE(await_empty(tree));
    CHECK(tree.status() == 128 + SIGKILL);
    return;
  }
  REQUIRE(fmtest::eventually([&] { return alive_count(beats) == 0; }, seconds(10)));
  beats = read_heartbeats(dir.path());
  const std::int64_t d1_ns = duration_cast<nanoseconds>(d1.time_since_epoch()).count();
  MESSAGE("the workers' last beat came " << (latest_beat(beats) - d1_ns) / 1e6 << " ms after D (5 ms beats)");
  CHECK(latest_beat(beats) >= d1_ns - 10'000'000);   // they ran until D (a beat every 5 ms, 10 ms margin) ...
  CHECK(latest_beat(beats) <= d1_ns + 100'000'000);  // ... and no longer (100 ms margin for a loaded machine)
  CHECK(termed_count(beats) == 0);
  REQUIRE(await_empty(tree));
  CHECK(tree.status() == 128 + SIGKILL);
  CHECK(tree.guarded());  // the sentinel waits on after the kill
}

TEST_CASE("a program that cannot be run is a StartError; find_program searches PATH as execvp") {
  CHECK(find_program("sh").has_value());
  CHECK_FALSE(find_program("fm-no-such-program-4711").has_value());
  CHECK_FALSE(find_program("/nonexistent/fm").has_value());
  CHECK_THROWS_AS(CommandTree({"fm-no-such-program-4711"}, {}, {}), StartError);
  CHECK_THROWS_AS(CommandTree({}, {}, {}), std::invalid_argument);
}
