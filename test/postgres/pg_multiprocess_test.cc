// Three processes (pg_campaigner, not threads) campaign on one lease through
// the suite's PostgreSQL for more than 30 s with TTL 3 s and retry 1 s.
// The holder is stopped cleanly (SIGTERM: campaign() releases), then the next one
// is killed (SIGKILL: its lease must expire); a replacement joins after each,
// so three always campaign. Measured on CLOCK_MONOTONIC, shared by all the
// processes of this machine:
//   takeover after the clean stop <= retry + 1 s,
//   takeover after the kill      <= TTL + retry + 1 s (and >= TTL − TTL/3 − 100 ms:
//                                   not before the killed holder's lease ran out),
// Liveness margins for a loaded 2-core machine (the suite runs beside busy
// loops on both cores): a process may be off the CPU for a second, so the
// holder has a TTL of 3 s to renew in, and each takeover a second over its
// bound. The safety bounds (the lower one, and no overlap) are not widened.
// and the terms' gates, as the processes saw them, never overlap.
#include <doctest/doctest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "forgemeter/postgres_store.h"
#include "support/eventually.h"
#include "support/pg_env.h"
#include "support/process.h"

using namespace std::chrono_literals;

namespace {

constexpr long long kMs = 1'000'000;  // ns
constexpr long long kTtl = 3000, kRetry = 1000, kLoadMargin = 1000;

long long now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Mark {
  std::string owner;
  std::uint64_t term = 0;
  long long ns = 0;
};

std::optional<Mark> parse(const std::string& line, std::string_view kind) {
  std::istringstream in(line);
  std::string k;
  Mark m;
  if (!(in >> k) || k != kind || !(in >> m.owner >> m.term >> m.ns)) return std::nullopt;
  return m;
}

struct Candidate {
  std::string owner;
  std::unique_ptr<fmtest::LineChild> proc;
  long long killed_ns = 0;  // set when SIGKILLed: its gate's end as far as work goes
};

struct Run {
  std::string conninfo, table;
  std::vector<Candidate> c;

  void spawn() {
    std::string owner = "proc-" + std::to_string(c.size() + 1);
    c.push_back(
        {owner,
         std::make_unique<fmtest::LineChild>(std::vector<std::string>{
             FM_PG_CAMPAIGNER, conninfo, table, "multi-process", owner, std::to_string(kTtl), std::to_string(kRetry)}),
         0});
    REQUIRE_FALSE(
        c.back().proc->await_line([](const std::string& l) { return l.rfind("READY", 0) == 0; }, 10s).empty());
  }

  std::vector<Mark> marks(std::string_view kind) const {
    std::vector<Mark> out;
    for (const auto& cand : c)
      for (const auto& l : cand.proc->lines())
        if (auto m = parse(l, kind)) out.push_back(*m);
    std::sort(out.begin(), out.end(), [](const Mark& a, const Mark& b) { return a.ns < b.ns; });
    return out;
  }

  // The first election after `after_ns`, waiting up to `timeout`.
  std::optional<Mark> elected_after(long long after_ns, std::chrono::milliseconds timeout) const {
    std::optional<Mark> found;
    fmtest::eventually(
        [&] {
          for (const auto& m : marks("ELECTED"))
            if (m.ns > after_ns) {
              found = m;
              return true;
            }
          return false;
        },
        timeout);
    return found;
  }

  Candidate& by_owner(const std::string& owner) {
    for (auto& cand : c)
      if (cand.owner == owner) return cand;
    FAIL("no candidate " << owner);
    return c.front();
  }
};

}  // namespace

FM_SUITE_PG_TEST("postgres multi-process: three campaigner processes, a clean stop and a SIGKILL, measured takeovers") {
  fmtest::ScratchTable table(*pg);
  Run run{*pg, table.name(), {}};
  const long long start = now_ns();
  for (int i = 0; i < 3; ++i) run.spawn();

  auto first = run.elected_after(start, 10s);
  REQUIRE(first);
  // Sticky: nobody else is elected while the holder is healthy (10 s).
  CHECK_FALSE(run.elected_after(first->ns, 10s));

  // Clean stop of the holder: it releases, a candidate takes over within one retry.
  const long long stop_at = now_ns();
  run.by_owner(first->owner).proc->signal(SIGTERM);
  CHECK(run.by_owner(first->owner).proc->wait_exit(5s) == 0);
  auto second = run.elected_after(stop_at, 4s);
  REQUIRE(second);
  const double clean_ms = static_cast<double>(second->ns - stop_at) / kMs;
  run.spawn();
  CHECK_FALSE(run.elected_after(second->ns, 10s));

  // SIGKILL of the new holder: its lease runs out, then a candidate takes over.
  const long long kill_at = now_ns();
  auto& victim = run.by_owner(second->owner);
  victim.proc->signal(SIGKILL);
  victim.killed_ns = kill_at;
  victim.proc->wait_exit(5s);
  auto third = run.elected_after(kill_at, 8s);
  REQUIRE(third);
  const double kill_ms = static_cast<double>(third->ns - kill_at) / kMs;
  run.spawn();
  // The last holder keeps it until the run has lasted more than 30 s.
  const auto rest = std::chrono::nanoseconds(std::max(start + 32'000 * kMs - now_ns(), 1'000 * kMs));
  CHECK_FALSE(run.elected_after(third->ns, std::chrono::duration_cast<std::chrono::milliseconds>(rest)));
  const double total_s = static_cast<double>(now_ns() - start) / 1e9;
  // ... and holds it still, many TTLs on: the store names it, in its term, unexpired.
  forgemeter::PostgresStore check({.conninfo = *pg, .table = table.name()});
  const auto held = check.inspect("multi-process", forgemeter::Deadline::after(forgemeter::system_clock(), 5s));
  CHECK(held.status == forgemeter::LeaseState::Status::held);
  CHECK(held.holder.rfind(third->owner + "#", 0) == 0);  // the campaign tags its owner
  CHECK(held.term == third->term);
  CHECK(held.expiry > forgemeter::lease_stamp(std::chrono::system_clock::now()));

  for (auto& cand : run.c) {
    if (cand.killed_ns) continue;
    cand.proc->signal(SIGTERM);
    CHECK(cand.proc->wait_exit(5s) == 0);
  }

  std::printf(
      "postgres multi-process (TTL %lld ms, retry %lld ms, %.1f s, %zu processes): takeover after clean stop "
      "%.0f ms (bound %lld), after SIGKILL %.0f ms (bound %lld)\n",
      kTtl, kRetry, total_s, run.c.size(), clean_ms, kRetry + kLoadMargin, kill_ms, kTtl + kRetry + kLoadMargin);
  MESSAGE("takeover after clean stop: " << clean_ms << " ms (bound " << kRetry + kLoadMargin
                                        << " ms); after SIGKILL: " << kill_ms << " ms (bound "
                                        << kTtl + kRetry + kLoadMargin << " ms); run lasted " << total_s << " s");
  CHECK(clean_ms <= kRetry + kLoadMargin);
  CHECK(kill_ms <= kTtl + kRetry + kLoadMargin);
  CHECK(kill_ms >= kTtl - kTtl / 3 - 100);

  // No two gates overlap: each term's work ended (or its process died) before
  // the next term's work started; terms increase.
  auto elected = run.marks("ELECTED");
  auto ended = run.marks("ENDED");
  REQUIRE(elected.size() >= 3);
  for (std::size_t i = 0; i < elected.size(); ++i) {
    CAPTURE(elected[i].owner);
    CAPTURE(elected[i].term);
    long long end = 0;
    for (const auto& e : ended)
      if (e.owner == elected[i].owner && e.term == elected[i].term) end = e.ns;
    if (!end) end = run.by_owner(elected[i].owner).killed_ns;
    REQUIRE(end > 0);
    if (i + 1 < elected.size()) {
      CHECK(end <= elected[i + 1].ns);
      CHECK(elected[i + 1].term > elected[i].term);
    }
  }
}
