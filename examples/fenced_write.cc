// Work fenced by the lease's term: a replica appends to a PostgreSQL table
// while it holds the lease "ledger", and the table accepts a write only when no
// later term has written already. A holder that stalls past its TTL (a GC
// pause, SIGSTOP) and then writes with its old term is refused by the fence,
// where the plain table takes the write (a lease is for load, not exclusion:
// docs/leases.md). test/postgres/pg_fenced_write_test.cc runs three of these
// under faults.
//
// usage: fenced_write CONNINFO OWNER [PREPARE_MS [TTL_MS]]
// Each write: check Term::valid(), prepare for PREPARE_MS (the window a stall
// can fall into), then append (term, owner, seq) to both tables. Prints
// READY/ELECTED/PREPARED/WROTE/FENCED/ENDED lines; SIGTERM stops it (releasing).
#include <libpq-fe.h>
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stop_token>
#include <string>
#include <thread>

#include "forgemeter/campaign.h"
#include "forgemeter/postgres_store.h"

namespace {

const char* const kSchema =
    "SET client_min_messages = warning;"
    "CREATE TABLE IF NOT EXISTS ledger_fence (name text PRIMARY KEY, term bigint NOT NULL);"
    "INSERT INTO ledger_fence VALUES ('ledger', 0) ON CONFLICT DO NOTHING;"
    "SET client_min_messages = warning;"
    "CREATE TABLE IF NOT EXISTS ledger_fenced (id bigserial PRIMARY KEY, term bigint, owner text, seq bigint);"
    "CREATE TABLE IF NOT EXISTS ledger_plain (id bigserial PRIMARY KEY, term bigint, owner text, seq bigint);";

// The fence: the UPDATE moves the fence up to this term, or matches nothing
// when a later term has written; the row lock it takes orders the writers, and
// READ COMMITTED re-checks the condition on the row a concurrent writer left.
const char* const kFencedAppend =
    "WITH fence AS (UPDATE ledger_fence SET term = $1::bigint WHERE name = 'ledger' AND term <= $1::bigint "
    "RETURNING term) INSERT INTO ledger_fenced (term, owner, seq) SELECT $1::bigint, $2, $3::bigint FROM fence";
const char* const kPlainAppend = "INSERT INTO ledger_plain (term, owner, seq) VALUES ($1::bigint, $2, $3::bigint)";

void say(const std::string& line) {
  std::fputs((line + "\n").c_str(), stdout);
  std::fflush(stdout);
}

// Runs `sql`; the rows it changed, or -1 when it failed (the session is reset
// for the next write: a restarted server is reached again).
long exec(PGconn* db, const char* sql, const std::string& term, const std::string& owner, const std::string& seq) {
  const char* params[] = {term.c_str(), owner.c_str(), seq.c_str()};
  PGresult* r = PQexecParams(db, sql, 3, nullptr, params, nullptr, nullptr, 0);
  long rows = -1;
  if (PQresultStatus(r) == PGRES_COMMAND_OK) rows = std::atol(PQcmdTuples(r));
  PQclear(r);
  if (rows < 0 && PQstatus(db) != CONNECTION_OK) PQreset(db);
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 5) {
    std::fprintf(stderr, "usage: %s CONNINFO OWNER [PREPARE_MS [TTL_MS]]\n", argv[0]);
    return 2;
  }
  const std::string conninfo = argv[1], owner = argv[2];
  const auto prepare = std::chrono::milliseconds(argc > 3 ? std::atoll(argv[3]) : 100);
  const auto ttl = std::chrono::milliseconds(argc > 4 ? std::atoll(argv[4]) : 3000);

  sigset_t term_signal;  // taken by one thread, which asks the campaign to stop
  sigemptyset(&term_signal);
  sigaddset(&term_signal, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term_signal, nullptr);
  std::stop_source stop;
  std::thread([&] {
    int sig = 0;
    sigwait(&term_signal, &sig);
    stop.request_stop();
  }).detach();

  PGconn* db = PQconnectdb(conninfo.c_str());
  PQclear(PQexec(db, kSchema));
  say("READY " + owner);
  forgemeter::PostgresStore store({.conninfo = conninfo});
  forgemeter::CampaignSpec spec{.name = "ledger", .owner = owner, .ttl = ttl};
  long long seq = 0;
  forgemeter::campaign(store, spec, stop.get_token(), [&](forgemeter::Term& term) {
    const std::string number = std::to_string(term.number());
    say("ELECTED " + owner + " " + number);
    while (!term.stop_token().stop_requested() && term.valid()) {
      const std::string s = std::to_string(++seq);
      say("PREPARED " + number + " " + s);
      std::this_thread::sleep_for(prepare);  // a stall here outlives the term
      exec(db, kPlainAppend, number, owner, s);
      const long fenced = exec(db, kFencedAppend, number, owner, s);
      say((fenced == 1 ? "WROTE " : fenced == 0 ? "FENCED " : "FAILED ") + number + " " + s);
    }
    say("ENDED " + owner + " " + number);
  });
  PQfinish(db);
  return 0;
}
