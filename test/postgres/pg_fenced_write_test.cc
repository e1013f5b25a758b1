// Fencing, shown working: three examples/fenced_write processes campaign on
// one lease of a PRIVATE PostgreSQL and append to a plain and a fenced table
// while they hold it. Faults: the holder SIGSTOPped inside its write's
// prepare window until its successor has written (a stall past the TTL), a
// SIGKILL of the holder, and a server restart. The plain table takes the
// stalled holder's late write with its old term (a lease is for load, not
// exclusion); the fenced table refuses it, and never holds a row of an older
// term after a newer one (rows in commit order: the fence's row lock orders
// the writers, and an id is drawn under it).
#include <doctest/doctest.h>
#include <signal.h>

#include <chrono>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "private_server.h"
#include "support/eventually.h"
#include "support/pg_env.h"
#include "support/process.h"

using namespace std::chrono_literals;

namespace {

constexpr auto kTtl = 1500ms;
constexpr auto kPrepare = 300ms;  // the window a stall falls into

struct Line {
  std::string kind, a, b;  // ELECTED owner term | PREPARED/WROTE/FENCED term seq
};

Line split(const std::string& text) {
  std::istringstream in(text);
  Line l;
  in >> l.kind >> l.a >> l.b;
  return l;
}

struct Writer {
  std::string owner;
  std::unique_ptr<fmtest::LineChild> proc;
  bool gone = false;  // stopped or killed by the test: not a candidate for holder()
};

struct Fleet {
  std::string conninfo;
  std::vector<Writer> w;

  void spawn() {
    const std::string owner = "writer-" + std::to_string(w.size() + 1);
    w.push_back({owner,
                 std::make_unique<fmtest::LineChild>(std::vector<std::string>{
                     FM_FENCED_WRITE, conninfo, owner, std::to_string(kPrepare.count()), std::to_string(kTtl.count())}),
                 false});
    REQUIRE_FALSE(
        w.back().proc->await_line([](const std::string& l) { return l.rfind("READY", 0) == 0; }, 20s).empty());
  }

  // Rows written through the fence so far, by every writer.
  std::size_t writes() const {
    std::size_t n = 0;
    for (const auto& x : w)
      for (const auto& l : x.proc->lines()) n += l.rfind("WROTE ", 0) == 0 ? 1 : 0;
    return n;
  }

  // The writer whose latest ELECTED is not followed by its ENDED, among those
  // the test has not stopped, and its term; waits up to `timeout`.
  std::optional<std::pair<Writer*, std::string>> holder(std::chrono::milliseconds timeout = 10s) {
    std::optional<std::pair<Writer*, std::string>> found;
    fmtest::eventually(
        [&] {
          for (auto& x : w) {
            if (x.gone) continue;
            std::optional<std::string> term;
            for (const auto& text : x.proc->lines()) {
              const Line l = split(text);
              if (l.kind == "ELECTED") term = l.b;
              if (l.kind == "ENDED") term.reset();
            }
            if (term) {
              found.emplace(&x, *term);
              return true;
            }
          }
          return false;
        },
        timeout);
    return found;
  }
};

bool has_line(Writer& x, const std::string& line, std::chrono::milliseconds timeout) {
  return !x.proc->await_line([&](const std::string& l) { return l == line; }, timeout).empty();
}

// Whether `x` has written (through the fence) `n` rows with `term` within `timeout`.
bool wrote_in(Writer& x, const std::string& term, std::chrono::milliseconds timeout, int n = 1) {
  const std::string prefix = "WROTE " + term + " ";
  return fmtest::eventually(
      [&] {
        int seen = 0;
        for (const auto& l : x.proc->lines()) seen += l.rfind(prefix, 0) == 0 ? 1 : 0;
        return seen >= n;
      },
      timeout);
}

// The newest PREPARED line of `x` that is followed by nothing: its write not yet made.
std::optional<Line> pending_write(const Writer& x) {
  const auto lines = x.proc->lines();
  if (lines.empty()) return std::nullopt;
  Line last = split(lines.back());
  if (last.kind != "PREPARED") return std::nullopt;
  return last;
}

std::vector<fmtest::Row> rows(const std::string& conninfo, const std::string& table) {
  fmtest::PgSession s(conninfo);
  auto r = s.exec("SELECT term, owner, seq FROM " + table + " ORDER BY id");
  REQUIRE_MESSAGE(r, s.error());
  return *r;
}

// Terms never go down in `table`'s commit order; the index of the first row
// that goes down, or nullopt.
std::optional<std::size_t> first_older_term(const std::vector<fmtest::Row>& table) {
  long long highest = 0;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const long long term = std::stoll(*table[i][0]);
    if (term < highest) return i;
    highest = std::max(highest, term);
  }
  return std::nullopt;
}

bool contains(const std::vector<fmtest::Row>& table, const std::string& owner, const std::string& seq) {
  for (const auto& r : table)
    if (*r[1] == owner && *r[2] == seq) return true;
  return false;
}

// Stops the holder between its PREPARED line and its write (retrying on the
// rare miss where the write landed first), and returns that pending write.
std::pair<Writer*, Line> stall_holder_before_a_write(Fleet& fleet) {
  for (int attempt = 0; attempt < 10; ++attempt) {
    auto h = fleet.holder();
    REQUIRE(h);
    Writer& x = *h->first;
    const std::size_t seen = x.proc->lines().size();
    REQUIRE_FALSE(x.proc
                      ->await_line(
                          [&, n = std::size_t{0}](const std::string& l) mutable {
                            return ++n > seen && l.rfind("PREPARED", 0) == 0;
                          },
                          5s)
                      .empty());
    x.proc->signal(SIGSTOP);
    // Stopped: its lines and its rows are final, unless a write was on the wire.
    auto pending = pending_write(x);
    if (pending && !contains(rows(fleet.conninfo, "ledger_plain"), x.owner, pending->b)) return {&x, *pending};
    x.proc->signal(SIGCONT);
  }
  FAIL("the holder never stopped inside its prepare window in 10 tries");
  return {};
}

}  // namespace

TEST_CASE("fenced writes: a stale term is refused by the fence under a stall, a kill and a restart") {
  if (fmtest::pg_skip_requested()) return;
  auto server = fmtest::private_server();
  if (!server) return;
  Fleet fleet{server->conninfo(), {}};
  for (int i = 0; i < 3; ++i) fleet.spawn();

  // 1. The holder stalls past its TTL just before a write; the successor
  //    writes with a higher term; the holder resumes and writes its old term.
  auto [stalled, write] = stall_holder_before_a_write(fleet);
  stalled->gone = true;
  auto next = fleet.holder(kTtl * 4);
  REQUIRE(next);
  CHECK(std::stoll(next->second) > std::stoll(write.a));
  REQUIRE(wrote_in(*next->first, next->second, 10s));
  stalled->proc->signal(SIGCONT);
  CHECK(has_line(*stalled, "FENCED " + write.a + " " + write.b, 10s));
  CHECK(contains(rows(fleet.conninfo, "ledger_plain"), stalled->owner, write.b));         // taken unfenced
  CHECK_FALSE(contains(rows(fleet.conninfo, "ledger_fenced"), stalled->owner, write.b));  // refused fenced
  CHECK(first_older_term(rows(fleet.conninfo, "ledger_plain")));  // the plain table went back a term
  stalled->gone = false;                                          // it campaigns again as a candidate

  // 2. SIGKILL the holder: another takes over after the TTL and writes.
  auto killed = fleet.holder();
  REQUIRE(killed);
  REQUIRE(wrote_in(*killed->first, killed->second, 10s, 2));
  killed->first->proc->signal(SIGKILL);
  killed->first->gone = true;
  auto after_kill = fleet.holder(kTtl * 4);
  REQUIRE(after_kill);
  CHECK(std::stoll(after_kill->second) > std::stoll(killed->second));
  CHECK(wrote_in(*after_kill->first, after_kill->second, 10s));
  fleet.spawn();

  // 3. Restart the server under them: the writers reconnect and go on.
  const std::size_t before_restart = fleet.writes();
  server->stop();
  server->start();
  CHECK(fmtest::eventually([&] { return fleet.writes() >= before_restart + 3; }, 30s));
  for (auto& x : fleet.w) x.proc->signal(SIGTERM);
  for (auto& x : fleet.w) x.proc->wait_exit(10s);
  const auto fenced = rows(fleet.conninfo, "ledger_fenced");
  CHECK(fenced.size() >= 3);
  const auto older = first_older_term(fenced);
  CHECK_MESSAGE(!older, "fenced row " << older.value_or(0) << " has an older term than a row before it");
  MESSAGE("fenced rows " << fenced.size() << ", plain rows " << rows(fleet.conninfo, "ledger_plain").size());
}
