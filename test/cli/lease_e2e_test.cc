// `forgemeter lease run` / `lease status` as processes: on the memory store
// (one process), and three processes campaigning on the test PostgreSQL and
// on a three-member etcd cluster (each when this build has that store; a
// store it does not have is refused, saying so).
#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "core/components.h"
#include "forgemeter_bin.h"
#include "support/silent_listener.h"
#include "support/skips.h"
#if FORGEMETER_HAS_ETCD
#include "support/etcd_cluster.h"
#endif
#if FORGEMETER_HAS_POSTGRES
#include "support/pg_env.h"
#endif

using namespace fmtest;
using namespace std::chrono;

namespace {

std::size_t line_count(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// Polls (real time) until `pred` holds or `timeout` passes; for files written by other processes.
template <class P>
bool eventually(P pred, milliseconds timeout) {
  auto end = steady_clock::now() + timeout;
  while (steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return pred();
}

struct Stamp {
  std::string kind, owner;
  std::int64_t ns = 0;
  std::uint64_t term = 0;  // start lines only
};

std::vector<Stamp> stamps(const std::string& path) {
  std::vector<Stamp> out;
  std::istringstream in(read_file(path));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream w(line);
    Stamp s;
    if (!(w >> s.kind >> s.ns >> s.owner)) continue;
    if (s.kind == "start") w >> s.term;
    out.push_back(s);
  }
  return out;
}

std::size_t count_kind(const std::vector<Stamp>& v, const std::string& kind) {
  std::size_t n = 0;
  for (const auto& s : v) n += s.kind == kind;
  return n;
}

std::int64_t now_ns() { return duration_cast<nanoseconds>(system_clock::now().time_since_epoch()).count(); }

// CMD: appends "start <ns> <owner> <term>" and, on SIGTERM, "stop <ns> <owner>" to $1.
const std::string kStampScript =
    "f=$1; echo \"start $(date +%s%N) $FORGEMETER_LEASE_OWNER $FORGEMETER_LEASE_TERM\" >> $f; "
    "trap 'echo \"stop $(date +%s%N) $FORGEMETER_LEASE_OWNER\" >> $f; exit 0' TERM; "
    "while :; do sleep 0.02; done";

// The CMD a `lease run` process started: its child (forked by one of its
// threads: /proc/<pid>/task/<tid>/children), or 0 when it has none.
pid_t cmd_of(pid_t lease_run) {
  pid_t cmd = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(lease_run) + "/task")) {
    const pid_t child = static_cast<pid_t>(std::atoi(read_file(task.path().string() + "/children").c_str()));
    if (child > 0) cmd = child;
  }
  return cmd;
}

// Whether `pid` still runs (a zombie does not).
bool running(pid_t pid) {
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const auto paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
}

}  // namespace

TEST_CASE("lease run on memory: CMD gets the lease's name, owner and term; forgemeter exits with CMD's status") {
  auto r = run_process({forgemeter_bin(), "lease", "run", "--store", "memory:", "nightly", "--owner", "me", "--ttl",
                        "3s", "--", "sh", "-c",
                        "echo \"$FORGEMETER_LEASE_NAME $FORGEMETER_LEASE_OWNER $FORGEMETER_LEASE_TERM\"; exit 3"});
  CHECK(r.exit_code == 3);
  CHECK(r.out == "nightly me 1\n");
  CHECK(r.err.find("elected (term 1") != std::string::npos);
  CHECK(r.err.find("released the lease") != std::string::npos);
}

TEST_CASE("SIGTERM to forgemeter is forwarded to CMD; forgemeter exits with what CMD answered") {
  TempDir dir;
  std::string up = dir.file("up");
  auto p = spawn_process({forgemeter_bin(), "lease", "run", "--store", "memory:", "n", "--ttl", "3s", "--", "sh", "-c",
                          "trap 'exit 7' TERM; echo up > " + up + "; while :; do sleep 0.02; done"},
                         dir.file("out"), dir.file("err"));
  REQUIRE(eventually([&] { return !read_file(up).empty(); }, seconds(20)));
  kill(p.pid, SIGTERM);
  CHECK(wait_exit(p.pid, seconds(20)) == 7);
}

TEST_CASE("lease usage errors and a missing command") {
  auto grace = run_process(
      {forgemeter_bin(), "lease", "run", "--store", "memory:", "n", "--ttl", "3s", "--grace", "1s", "--", "true"});
  CHECK(grace.exit_code == 2);
  CHECK(line_count(grace.err) == 1);
  CHECK(grace.err.find("more than TTL/6") != std::string::npos);

  auto store = run_process({forgemeter_bin(), "lease", "run", "--store", "mongodb://x", "n", "--", "true"});
  CHECK(store.exit_code == 2);

  // A command that cannot be run: 127 not found, 126 found but not executable (as env, timeout and shells).
  auto missing =
      run_process({forgemeter_bin(), "lease", "run", "--store", "memory:", "n", "--", "/nonexistent/forgemeter-cmd"});
  CHECK(missing.exit_code == 127);
  CHECK(missing.err.find("cannot run '/nonexistent/forgemeter-cmd': no such file") != std::string::npos);
  auto off_path =
      run_process({forgemeter_bin(), "lease", "run", "--store", "memory:", "n", "--", "fm-no-such-cmd-4711"});
  CHECK(off_path.exit_code == 127);
  CHECK(off_path.err.find("not found on PATH") != std::string::npos);
  TempDir dir;
  const std::string plain = dir.file("plain");
  write_file(plain, "echo hi\n");  // mode 0644: not executable
  auto not_exec = run_process({forgemeter_bin(), "lease", "run", "--store", "memory:", "n", "--", plain});
  CHECK(not_exec.exit_code == 126);
  CHECK(not_exec.err.find("not executable") != std::string::npos);
  auto directory = run_process({forgemeter_bin(), "lease", "run", "--store", "memory:", "n", "--", dir.path()});
  CHECK(directory.exit_code == 126);
  CHECK(directory.err.find("it is a directory") != std::string::npos);

  // An unknown option is named, though the word it swallowed shifts the arguments after it.
  auto bogus = run_process({forgemeter_bin(), "lease", "run", "--store", "memory:", "--bogus", "x", "n", "--", "true"});
  CHECK(bogus.exit_code == 2);
  CHECK(bogus.err.find("unknown option '--bogus'") != std::string::npos);

  auto status = run_process({forgemeter_bin(), "lease", "status", "--store", "memory:", "nightly"});
  CHECK(status.exit_code == 0);
  CHECK(status.out == "lease \"nightly\": free (never taken)\n");
  auto json = run_process({forgemeter_bin(), "lease", "status", "--store", "memory:", "--json", "nightly"});
  CHECK(json.out.find(R"("held":false)") != std::string::npos);
}

namespace {

// Three `lease run` processes on one shared store: one CMD at a time, SIGKILL
// hands over within TTL + retry, a stalled holder's CMD is SIGKILLed by its
// sentinel at the term's deadline, a clean stop hands over within a retry,
// and terms strictly increase.
void three_processes(const std::string& pg) {
  TempDir dir;
  const std::string log = dir.file("stamps");
  const std::string name = "cli-e2e-" + std::to_string(getpid()) + "-" + std::to_string(now_ns());
  // TTL 1.5 s: retry 0.5 s, grace (default) TTL/6 = 250 ms.
  const milliseconds ttl(1500), retry(500);
  std::map<std::string, Spawned> procs;
  for (std::string owner : {"p0", "p1", "p2"})
    procs[owner] = spawn_process({forgemeter_bin(), "lease", "run", "--store", pg, "--name", name, "--owner", owner,
                                  "--ttl", "1500ms", "--retry", "500ms", "--", "sh", "-c", kStampScript, "sh", log},
                                 dir.file(owner + ".out"), dir.file(owner + ".err"));
  REQUIRE(eventually([&] { return count_kind(stamps(log), "start") == 1; }, seconds(20)));
  std::this_thread::sleep_for(seconds(2));  // a steady holder keeps its term across renewals
  auto s1 = stamps(log);
  CHECK(count_kind(s1, "start") == 1);
  const std::string first = s1.front().owner;
  auto status = run_process({forgemeter_bin(), "lease", "status", "--store", pg, name});
  CHECK(status.out.find("held by " + first + " until") != std::string::npos);  // the name, without the tag
  auto json = run_process({forgemeter_bin(), "lease", "status", "--store", pg, "--json", name});
  CHECK(json.out.find(R"("held":true,"holder":")" + first + R"(","expiry":")") != std::string::npos);
  CHECK(std::regex_search(json.out, std::regex(R"("expiry":"20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")")));
  CHECK(std::regex_search(json.out, std::regex(R"("holder_id":")" + first + R"(#[0-9a-f]{12}"\})")));  // as stored

  // SIGKILL of the holder: its CMD dies with it (PDEATHSIG); another takes over within TTL + retry.
  const pid_t first_cmd = cmd_of(procs[first].pid);
  REQUIRE(first_cmd > 0);
  REQUIRE(running(first_cmd));
  const std::int64_t killed_at = now_ns();
  kill(procs[first].pid, SIGKILL);
  CHECK(wait_exit(procs[first].pid, seconds(5)) == 128 + SIGKILL);
  REQUIRE(eventually([&] { return count_kind(stamps(log), "start") == 2; }, seconds(10)));
  // One CMD at a time: the killed holder's own CMD was gone by the time its successor's ran.
  CHECK_FALSE(running(first_cmd));
  auto s2 = stamps(log);
  Stamp second;
  for (const auto& s : s2)
    if (s.kind == "start") second = s;
  const double handover_ms = static_cast<double>(second.ns - killed_at) / 1e6;
  MESSAGE("handover after SIGKILL: " << handover_ms
                                     << " ms (bound TTL + retry = 2000 ms, + 500 ms for process start-up)");
  CHECK(second.owner != first);
  CHECK(handover_ms <= 2500);

  // SIGSTOP of the holder's forgemeter and CMD for 2 TTLs (its sentinel, a process of its own,
  // runs on): the sentinel SIGKILLs CMD's group at the term's deadline D, stopped as it is, so no
  // trap runs; on resume forgemeter finds its tree gone and exits 1.
  pid_t holder = procs[second.owner].pid;
  const pid_t cmd_group = cmd_of(holder);  // CMD leads its own process group
  REQUIRE(cmd_group > 0);
  kill(holder, SIGSTOP);
  kill(-cmd_group, SIGSTOP);
  const std::int64_t stopped_at = now_ns();
  std::this_thread::sleep_for(ttl * 2);
  kill(-cmd_group, SIGCONT);
  kill(holder, SIGCONT);
  CHECK(wait_exit(holder, seconds(5)) == 1);  // the term ended under CMD
  CHECK_FALSE(running(cmd_group));
  for (const auto& s : stamps(log)) CHECK_FALSE((s.kind == "stop" && s.owner == second.owner));
  // A successor took over during the stall, but not before the lease could expire in the store.
  REQUIRE(eventually([&] { return count_kind(stamps(log), "start") == 3; }, seconds(10)));
  Stamp third;
  for (const auto& s : stamps(log))
    if (s.kind == "start") third = s;
  CHECK(third.owner != second.owner);
  CHECK(third.ns - stopped_at >= duration_cast<nanoseconds>(ttl - retry).count());

  // Intervals never overlap: the first ended (SIGKILL) before the second started.
  CHECK(second.ns > killed_at);

  // A clean stop (SIGTERM) of the holder releases the lease: a fresh candidate
  // takes over within a retry (its first acquire, or its next poll).
  procs["p3"] = spawn_process({forgemeter_bin(), "lease", "run", "--store", pg, "--name", name, "--owner", "p3",
                               "--ttl", "1500ms", "--retry", "500ms", "--", "sh", "-c", kStampScript, "sh", log},
                              dir.file("p3.out"), dir.file("p3.err"));
  const std::int64_t stopping = now_ns();
  kill(procs[third.owner].pid, SIGTERM);
  CHECK(wait_exit(procs[third.owner].pid, seconds(10)) == 0);  // CMD's trap exits 0, forwarded
  REQUIRE(eventually([&] { return count_kind(stamps(log), "start") == 4; }, seconds(10)));
  const Stamp fourth = stamps(log).back();
  CHECK(fourth.owner == "p3");
  // Liveness margin: the stop, a process start-up and CMD's first stamp on
  // a loaded 2-core machine (busy loops on both cores) took 1.15 s once.
  MESSAGE("handover after a clean stop: " << static_cast<double>(fourth.ns - stopping) / 1e6
                                          << " ms (bound: retry 500 ms, + 1.5 s for the stop and start-up)");
  CHECK(fourth.ns - stopping <= duration_cast<nanoseconds>(retry + milliseconds(1500)).count());
  kill(procs["p3"].pid, SIGTERM);
  CHECK(wait_exit(procs["p3"].pid, seconds(10)) == 0);

  // Every start carried a higher term than the one before it; every CMD that started stopped
  // (the SIGKILLed holder's died with it, the stalled one's sentinel SIGKILLed it at D: no stamp).
  auto done = stamps(log);
  CHECK(count_kind(done, "stop") == 2);
  std::uint64_t last_term = 0;
  for (const auto& st : done)
    if (st.kind == "start") {
      CHECK(st.term > last_term);
      last_term = st.term;
    }
}

}  // namespace

#if FORGEMETER_HAS_POSTGRES
FM_SUITE_PG_TEST(
    "three processes on PostgreSQL: one CMD at a time, SIGKILL and a clean stop hand over, a stalled "
    "holder's CMD is killed at its deadline") {
  three_processes(*pg);
}
#endif

#if FORGEMETER_HAS_ETCD
TEST_CASE("three processes on a three-member etcd cluster: the same, through etcd:// URIs") {
  if (!fmtest::EtcdCluster::available()) {
    fmtest::skipped("no etcd binary on PATH (Debian package etcd-server): the etcd lease test did not run");
    return;
  }
  fmtest::EtcdCluster cluster(3);
  three_processes(cluster.uri("/cli-e2e/"));
}
#endif

#if FORGEMETER_HAS_POSTGRES
TEST_CASE("lease status against a frozen store exits 1 within --timeout (default 10 s), the check included") {
  fmtest::SilentListener frozen;  // connects, never answers: a server that froze
  const std::string store = "host=127.0.0.1 port=" + std::to_string(frozen.port()) + " user=postgres dbname=postgres";
  for (const auto& [timeout, bound] : {std::pair<std::string, double>{"1s", 1.0}, {"", 10.0}}) {
    CAPTURE(timeout);
    std::vector<std::string> argv{forgemeter_bin(), "lease", "status", "--store", store, "n"};
    if (!timeout.empty()) argv.insert(argv.end(), {"--timeout", timeout});
    const auto t0 = steady_clock::now();
    auto r = run_process(argv);
    const double took = duration<double>(steady_clock::now() - t0).count();
    MESSAGE("lease status --timeout " << (timeout.empty() ? "(10s)" : timeout) << " took " << took << " s");
    CHECK(r.exit_code == 1);
    CHECK(took >= bound - 0.1);
    CHECK(took <= bound + 1.5);  // process start-up and libpq on a loaded machine
    CHECK(r.err.find("cannot read the lease from the store: ") != std::string::npos);
  }
  auto zero = run_process({forgemeter_bin(), "lease", "status", "--store", store, "--timeout", "0s", "n"});
  CHECK(zero.exit_code == 2);
}
#endif

#if FORGEMETER_HAS_ETCD
TEST_CASE("lease status on etcd: a record it cannot read is said so, not 'did not answer'") {
  if (!fmtest::EtcdCluster::available()) {
    fmtest::skipped("no etcd binary on PATH (Debian package etcd-server): the etcd record test did not run");
    return;
  }
  fmtest::EtcdCluster cluster(1);
  // "/cli-bad/n" := "not a lease", base64 as the gateway takes them.
  REQUIRE_FALSE(cluster.post(0, "/v3/kv/put", R"({"key":"L2NsaS1iYWQvbg==","value":"bm90IGEgbGVhc2U="})").empty());
  auto r = run_process({forgemeter_bin(), "lease", "status", "--store", cluster.uri("/cli-bad/"), "n"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("did not answer") == std::string::npos);
  CHECK(r.err.find("not a forgemeter lease record") != std::string::npos);
}
#endif

#if !FORGEMETER_HAS_POSTGRES || !FORGEMETER_HAS_ETCD
TEST_CASE("a store this build does not have: lease run and lease status exit 2 and say so, its password unshown") {
  std::vector<std::pair<std::string, std::string>> absent;  // a store URI, the words of the refusal
  if (!FORGEMETER_HAS_POSTGRES) {
    absent.emplace_back("postgresql://svc:hunter2@127.0.0.1:1/app", "built without PostgreSQL support");
    absent.emplace_back("host=127.0.0.1 password=hunter2", "built without PostgreSQL support");
  }
  if (!FORGEMETER_HAS_ETCD) absent.emplace_back("etcd://svc:hunter2@127.0.0.1:1/leases/", "built without etcd support");
  for (const auto& [store, words] : absent) {
    CAPTURE(store);
    for (const auto& r : {run_process({forgemeter_bin(), "lease", "run", "--store", store, "n", "--", "true"}),
                          run_process({forgemeter_bin(), "lease", "status", "--store", store, "n"})}) {
      CHECK(r.exit_code == 2);
      CHECK(r.err.find(words) != std::string::npos);
      CHECK(r.err.find("hunter2") == std::string::npos);
    }
  }
}
#endif

TEST_CASE("lease run, status and resign take NAME by one rule: a name run refuses is a usage error, never \"free\"") {
  const std::string too_long(64, 'a');
  for (const std::string& name :
       {std::string("Gate"), std::string("other"), std::string("a/b"), std::string("_x"), std::string(" "), too_long}) {
    CAPTURE(name);
    const ProcessOptions bounded{.timeout = 10s};  // a --watch that took the name would never end
    for (const auto& r :
         {run_process({forgemeter_bin(), "lease", "run", "--store", "memory:", name, "--", "true"}, bounded),
          run_process({forgemeter_bin(), "lease", "status", "--store", "memory:", name}, bounded),
          run_process({forgemeter_bin(), "lease", "status", "--store", "memory:", "--json", name}, bounded),
          run_process({forgemeter_bin(), "lease", "status", "--store", "memory:", "--watch", name}, bounded),
          run_process({forgemeter_bin(), "lease", "resign", "--store", "memory:", name}, bounded)}) {
      CHECK(r.exit_code == 2);
      CHECK(r.out.empty());  // no "free" line
      CHECK(r.err.find("lease names follow the lane rule") != std::string::npos);
      CHECK(line_count(r.err) == 1);
    }
  }
  // And a name it takes is taken by all three.
  CHECK(run_process({forgemeter_bin(), "lease", "status", "--store", "memory:", "gate.v2_x-1"}).exit_code == 0);
  CHECK(run_process({forgemeter_bin(), "lease", "resign", "--store", "memory:", "gate.v2_x-1"}).exit_code == 0);
}

TEST_CASE("lease names and owners reach the terminal escaped") {
  // A name no lease command takes: refused, quoted escaped.
  const std::string name = "gate\x1b[2J\x07";
  std::vector<ProcessResult> refused;
  for (const char* cmd : {"status", "resign"})
    refused.push_back(run_process({forgemeter_bin(), "lease", cmd, "--store", "memory:", name}));
  refused.push_back(run_process(
      {forgemeter_bin(), "lease", "run", "--store", "memory:", name, "--owner", "o\x1b]0;x\x07", "--", "true"}));
  for (const auto& r : refused) {
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("lease names follow the lane rule") != std::string::npos);
  }
  auto owner = run_process(
      {forgemeter_bin(), "lease", "run", "--store", "memory:", "gate", "--owner", "o\x1b]0;x\x07", "--", "true"});
  CHECK(owner.exit_code == 0);
  CHECK(owner.err.find("o\\x1b]0;x\\x07") != std::string::npos);
  refused.push_back(owner);
  for (const auto& r : refused)
    for (char c : r.out + r.err) CHECK((static_cast<unsigned char>(c) >= 0x20 || c == '\n'));
}

TEST_CASE("--serve-for narrows the serving window within its bounds; outside them it is a usage error") {
  auto ok = run_process(
      {forgemeter_bin(), "lease", "run", "--store", "memory:", "w", "--ttl", "9s", "--serve-for", "4s", "--", "true"});
  CHECK(ok.exit_code == 0);
  for (const char* bad : {"3s", "8s", "soon"}) {  // at most T/3; past T - T/6; not a duration
    CAPTURE(bad);
    auto r = run_process(
        {forgemeter_bin(), "lease", "run", "--store", "memory:", "w", "--ttl", "9s", "--serve-for", bad, "--", "true"});
    CHECK(r.exit_code == 2);
  }
}
