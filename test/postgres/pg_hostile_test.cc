// PostgresStore against a hostile environment: every call ends by its deadline
// or its stop, whatever the server or the resolver does:
//   * a FROZEN server (every process of a PRIVATE instance SIGSTOPped): no
//     call is held past its deadline — not a statement on an open
//     connection, not a new connection (the kernel still accepts it), not
//     the abandoned statements' ending (no cancel request is sent for a
//     server that ends them itself, so nothing waits on the frozen server's
//     cancel port) — a stop ends a call at once, and all is well after SIGCONT;
//   * a RESOLVER that hangs: getaddrinfo() is interposed in this binary for
//     one name, which it never answers until the test lets it; a call is
//     still bounded by its deadline and by its stop.
// Margins (liveness only: how soon the caller has control back): a call
// ends within kLate after its 300 ms deadline and within kAfterStop of a
// stop. A call the frozen server held would end only at the thaw, one the
// stop missed at its 10 s deadline: both far outside them. Measured on a
// 2-core machine with a busy loop per core and others' builds (load average
// 15-19): 300-320 ms, a stop 0.1-0.3 ms; the margins leave room for a
// scheduling stall twice as bad as that load (scripts/dev test --loaded).
#include <dirent.h>
#include <dlfcn.h>
#include <doctest/doctest.h>
#include <netdb.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <future>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "forgemeter/postgres_store.h"
#include "lease/postgres/canceller.h"
#include "private_server.h"
#include "store_calls.h"
#include "support/eventually.h"
#include "support/pg_env.h"

using namespace std::chrono_literals;
using fmtest::t0;
using forgemeter::Deadline;
using forgemeter::LeaseState;
using forgemeter::LeaseStatus;
using forgemeter::PostgresStore;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::string_view kHangingName = "resolver-hangs.forgemeter.test";

// The interposed resolver's gate: closed, a lookup of kHangingName waits.
struct ResolverGate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  std::atomic<int> hung{0};  // lookups of kHangingName so far
  std::atomic<int> others{0};
};
ResolverGate& gate() {
  static ResolverGate* g = new ResolverGate;  // never destroyed: helper threads may still wait at exit
  return *g;
}

struct GateOpener {
  ~GateOpener() {
    {
      std::lock_guard lock(gate().mu);
      gate().open = true;
    }
    gate().cv.notify_all();
  }
};

Deadline within(std::chrono::milliseconds d) { return Deadline::after(forgemeter::system_clock(), d); }

constexpr auto kLate = 500ms;       // the scheduling slack after a deadline (above)
constexpr auto kAfterStop = 250ms;  // the same after a stop

// Every process of a PostgreSQL instance (the postmaster and its children),
// stopped with SIGSTOP until thaw() or destruction.
class Freeze {
 public:
  explicit Freeze(int postmaster) {
    pids_.push_back(postmaster);
    if (DIR* d = ::opendir("/proc")) {
      while (dirent* e = ::readdir(d)) {
        const int pid = std::atoi(e->d_name);
        if (pid > 0 && parent_of(pid) == postmaster) pids_.push_back(pid);
      }
      ::closedir(d);
    }
    for (int pid : pids_) ::kill(pid, SIGSTOP);
  }
  ~Freeze() { thaw(); }
  void thaw() {
    for (int pid : pids_) ::kill(pid, SIGCONT);
    pids_.clear();
  }
  std::size_t size() const { return pids_.size(); }
  static int parent_of(int pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');  // the command name may hold spaces
    if (close == std::string::npos) return -1;
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    int ppid = -1;
    rest >> state >> ppid;
    return ppid;
  }

 private:
  std::vector<int> pids_;
};

template <typename Call>
std::pair<std::invoke_result_t<Call>, Clock::duration> timed(Call call) {
  const auto start = Clock::now();
  auto r = call();
  return {std::move(r), Clock::now() - start};
}

// Runs call(stop token) on a thread of its own, requests the stop 100 ms in
// (a duration, not a sync: the call is meant to be waiting on something that
// never answers), and returns its result and how long after the stop it came.
template <typename Call>
std::pair<std::invoke_result_t<Call, std::stop_token>, Clock::duration> stopped_midway(Call call) {
  std::stop_source stop;
  auto pending = std::async(std::launch::async, [&] { return call(stop.get_token()); });
  std::this_thread::sleep_for(100ms);
  const auto stop_at = Clock::now();
  stop.request_stop();
  auto result = pending.get();
  return {std::move(result), Clock::now() - stop_at};
}

}  // namespace

// Interposes libc's resolver for this test binary (libpq calls it through its
// PLT); every other name goes to the real one.
extern "C" int getaddrinfo(const char* node, const char* service, const struct addrinfo* hints, struct addrinfo** res) {
  using Fn = int (*)(const char*, const char*, const struct addrinfo*, struct addrinfo**);
  static const Fn real = reinterpret_cast<Fn>(::dlsym(RTLD_NEXT, "getaddrinfo"));
  if (node && std::string_view(node) == kHangingName) {
    ++gate().hung;
    std::unique_lock lock(gate().mu);
    gate().cv.wait(lock, [] { return gate().open; });
    return EAI_AGAIN;
  }
  ++gate().others;
  return real(node, service, hints, res);
}

TEST_CASE(
    "postgres hostile: a frozen server (SIGSTOP) holds no call past its deadline or its stop; no cancel "
    "request waits on it; after SIGCONT the store answers and the abandoned backends are gone") {
  if (fmtest::pg_skip_requested()) return;
  auto server = fmtest::private_server();
  if (!server) return;
  const std::string app = "fm-frozen";
  PostgresStore store(
      {.conninfo = server->conninfo(), .table = "leases", .max_connections = 2, .application_name = app});
  REQUIRE(store.acquire("gate", "a", t0, 10s, within(5s)).status == LeaseStatus::granted);
  fmtest::PgSession admin(server->conninfo());
  auto backend = admin.exec("SELECT pg_backend_pid()");
  REQUIRE(backend);
  const int postmaster = Freeze::parent_of(std::stoi(*(*backend)[0][0]));
  REQUIRE(postmaster > 1);
  const auto cancels_before = forgemeter::pg::cancels_sent();
  {
    Freeze frozen(postmaster);
    REQUIRE(frozen.size() >= 3);  // postmaster, its helpers, the store's backend, admin's

    // A statement on the open connection: sent, never answered.
    auto [sent, sent_took] = timed([&] { return store.renew("gate", "a", t0 + 1s, 10s, within(300ms)); });
    CHECK(sent.status == LeaseStatus::no_answer);
    CHECK(sent.error.find("deadline") != std::string::npos);
    CHECK(sent_took >= 300ms);
    CHECK(sent_took < 300ms + kLate);

    // The next call connects afresh: the kernel accepts, the postmaster never answers.
    auto [fresh, fresh_took] = timed([&] { return store.renew("gate", "a", t0 + 2s, 10s, within(300ms)); });
    CHECK(fresh.status == LeaseStatus::no_answer);
    CHECK(fresh.error.find("connecting") != std::string::npos);
    CHECK(fresh_took >= 300ms);
    CHECK(fresh_took < 300ms + kLate);

    // A stop ends a call at once.
    auto [stopped, after_stop] = stopped_midway([&](std::stop_token stop) {  // waiting on the frozen server
      return store.renew("gate", "a", t0 + 3s, 10s, Deadline::after(forgemeter::system_clock(), 10s, stop));
    });
    CHECK(stopped.status == LeaseStatus::no_answer);
    CHECK(stopped.error.find("stopped") != std::string::npos);
    CHECK(after_stop < kAfterStop);
    CHECK(forgemeter::pg::cancels_sent() == cancels_before);
    MESSAGE("frozen server: statement abandoned after "
            << std::chrono::duration<double, std::milli>(sent_took).count() << " ms, connecting after "
            << std::chrono::duration<double, std::milli>(fresh_took).count()
            << " ms (deadlines 300 ms); a stop ended a call "
            << std::chrono::duration<double, std::milli>(after_stop).count() << " ms after it");
  }
  // Thawed: the store answers again, and the backends of the abandoned calls end themselves.
  CHECK(fmtest::eventually(
      [&] { return store.renew("gate", "a", t0 + 4s, 10s, within(2s)).status == LeaseStatus::granted; }));
  CHECK(fmtest::eventually([&] {
    auto rows =
        admin.exec("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND state <> 'idle'", {app});
    return rows && *(*rows)[0][0] == "0";
  }));
  CHECK(forgemeter::pg::cancels_sent() == cancels_before);
}

FM_SUITE_PG_TEST("postgres hostile: a host name whose resolution hangs holds no call past its deadline or its stop") {
  GateOpener open_at_end;
  PostgresStore store({.conninfo = "host=" + std::string(kHangingName) + " port=5432 dbname=postgres user=postgres",
                       .table = "leases"});
  auto [late, late_took] = timed([&] { return store.inspect("gate", within(300ms)); });
  CHECK(late.status == LeaseState::Status::no_answer);
  CHECK(late.error.find("connecting did not finish") != std::string::npos);
  CHECK(late_took >= 300ms);
  CHECK(late_took < 300ms + kLate);
  CHECK(gate().hung.load() >= 1);  // the lookup did hang in the resolver

  auto [stopped, after_stop] = stopped_midway([&](std::stop_token stop) {  // waiting on the resolver
    return store.inspect("gate", Deadline::after(forgemeter::system_clock(), 10s, stop));
  });
  CHECK(stopped.status == LeaseState::Status::no_answer);
  CHECK(stopped.error.find("stopped") != std::string::npos);
  CHECK(after_stop < kAfterStop);
  CHECK(gate().hung.load() >= 2);
  MESSAGE("hanging resolver: call ended " << std::chrono::duration<double, std::milli>(late_took).count()
                                          << " ms after it began (deadline 300 ms); a stop ended one "
                                          << std::chrono::duration<double, std::milli>(after_stop).count()
                                          << " ms after it");

  // A name that resolves still connects (through the same interposed resolver).
  fmtest::ScratchTable table(*pg);
  const int before = gate().others.load();
  PostgresStore by_name({.conninfo = *pg + " host=localhost", .table = table.name()});
  CHECK(by_name.inspect("gate", within(5s)).status == LeaseState::Status::free);
  CHECK(gate().others.load() > before);
}
