// Campaigns on PostgresStore across a server CRASH (a PRIVATE instance):
// `pg_ctl stop -m immediate`, then a restart, whose crash recovery empties the
// UNLOGGED live table. The durable terms table must make the store
// quarantine the lease for a full TTL from the first attempt after the
// restart, refuse the old holder's renewal, and then elect one holder at the
// old term + 1, with no two valid gates overlapping (intervals on one
// monotonic clock, as in the stop/restart fault test).
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "forgemeter/postgres_store.h"
#include "private_server.h"
#include "support/campaign_spans.h"
#include "support/eventually.h"
#include "support/pg_env.h"
#include "support/pg_instance.h"
#include "support/process.h"

using namespace std::chrono_literals;
using fmtest::check_no_overlap;
using fmtest::ms;
using fmtest::Spans;
using fmtest::SteadyClock;
using forgemeter::LeaseStatus;

namespace {

// pg_ctl stop -m immediate: the postmaster and its backends quit without a
// checkpoint, so the next start runs crash recovery.
void crash(fmtest::PrivatePg& server) {
  fmtest::PgSession s(server.conninfo());
  auto dir = s.exec("SELECT current_setting('data_directory')");
  REQUIRE(dir);
  const std::string data = *(*dir)[0][0];
  std::vector<std::string> argv;
  if (::geteuid() == 0) argv = {"/usr/sbin/runuser", "-u", "postgres", "--"};
  // From the data directory: the postgres user may not enter ours.
  for (const char* a : {"/usr/bin/env", "-C"}) argv.emplace_back(a);
  argv.push_back(data);
  argv.push_back(fmtest::PrivatePg::bin_dir() + "/pg_ctl");
  for (const char* a : {"-D", data.c_str(), "-m", "immediate", "-w", "stop"}) argv.emplace_back(a);
  fmtest::LineChild pg_ctl(argv);
  REQUIRE(pg_ctl.wait_exit(30s) == 0);
  server.stop();  // only marks it down: the server is gone already
}

std::uint64_t last_term(const Spans& spans) { return spans.all().back().term; }

}  // namespace

TEST_CASE("postgres crash: unlogged state lost; quarantined a TTL from the first attempt, then term + 1, no overlap") {
  if (fmtest::pg_skip_requested()) return;
  auto server = fmtest::private_server();
  if (!server) return;
  constexpr auto kTtl = 1200ms, kStepDown = kTtl - kTtl / 6;
  fmtest::MidTerm race(fmtest::pg_stores(server->conninfo(), "leases"), {.name = "crash", .ttl = kTtl});
  auto& spans = race.spans;
  const std::string holder = race.holder;
  const std::uint64_t old_term = last_term(spans);

  const auto crashing = SteadyClock::now();
  crash(*server);
  const auto last_proven = race.last_proven();

  const auto restarting = SteadyClock::now();
  server->start();
  const auto restarted = SteadyClock::now();
  const auto deadline = [] { return forgemeter::Deadline::after(forgemeter::system_clock(), 5s); };
  forgemeter::PostgresStore probe({.conninfo = server->conninfo(), .table = "leases"});
  {
    // The live row is gone; the old holder's renewal finds nothing to renew,
    // and inspect still reports the old term, not 0.
    auto renew = probe.renew("crash", holder, std::chrono::system_clock::now(), kTtl, deadline());
    CHECK(renew.status == LeaseStatus::refused);
    auto seen = probe.inspect("crash", deadline());
    CHECK(seen.term >= old_term);
  }

  // The first attempt after the restart quarantines the name: a live row
  // that nobody holds, expiring a recorded TTL after that attempt's now.
  fmtest::PgSession admin(server->conninfo());
  std::optional<std::vector<fmtest::Row>> row;
  REQUIRE(fmtest::eventually([&] {
    row = admin.exec("SELECT owner IS NULL, expiry_ms - renewed_at_ms, term FROM leases WHERE name = 'crash'");
    return row && !row->empty();
  }));
  CHECK(*(*row)[0][0] == "t");
  CHECK(*(*row)[0][1] == std::to_string(kTtl.count()));
  CHECK(*(*row)[0][2] == std::to_string(old_term));

  REQUIRE(fmtest::eventually([&] { return spans.started_after(restarting); }, 10s));
  const auto back = spans.all().back();
  CHECK_FALSE(fmtest::eventually([&] { return spans.started_after(back.start); }, 2s));  // it keeps it
  race.finish();

  // The first acquire answered after the restart: the one that quarantined.
  SteadyClock::time_point first{SteadyClock::time_point::max()};
  for (auto& c : race.cands)
    for (const auto& call : c->recorder.calls())
      if (call.op == "acquire" && call.sent >= restarting && call.status != LeaseStatus::no_answer)
        first = std::min(first, call.sent);
  REQUIRE(first != SteadyClock::time_point::max());
  // Expiry is inclusive and kept to the ms (floor), on the wall clock: 2 ms of slack.
  CHECK(back.start >= first + kTtl - 2ms);
  CHECK(back.term == old_term + 1);
  CHECK(back.start >= last_proven + kTtl - 2ms);  // the old lease's expiry, too
  for (auto& c : race.cands)
    for (const auto& call : c->recorder.calls())
      if (call.owner == holder && call.op == "renew" && call.sent >= restarting && call.sent < back.start)
        CHECK(call.status != LeaseStatus::granted);

  const auto all = spans.all();
  check_no_overlap(all);
  const auto served = std::find_if(all.begin(), all.end(), [&](const auto& s) { return s.term == old_term; });
  REQUIRE(served != all.end());
  CHECK(served->last_valid <= last_proven + kStepDown);
  std::printf(
      "postgres crash: server down and back %.0f ms after the crash began; holder %s (term %llu) stepped "
      "down %.0f ms after its last proven renewal (bound %.0f ms); first post-restart attempt %.0f ms after the "
      "restart began; %s elected at term %llu %.0f ms after that attempt (quarantine %.0f ms); %zu terms, no "
      "overlap\n",
      ms(restarted - crashing), holder.c_str(), static_cast<unsigned long long>(old_term),
      ms(served->last_valid - last_proven), ms(kStepDown), ms(first - restarting), back.owner.c_str(),
      static_cast<unsigned long long>(back.term), ms(back.start - first), ms(kTtl), all.size());
}
