// forgemeter/postgres_store.h — the lease store shared by replicas, on PostgreSQL.
//
//   forgemeter::PostgresStore store({.conninfo = "host=db.internal dbname=app user=svc"});
//   forgemeter::run(store, spec, stop, work);   // forgemeter/campaign.h
//
// It keeps the contract of forgemeter/lease.h (the conformance suite checks
// it) in TWO tables:
//
//   <table> (UNLOGGED), one live row per lease name:
//     name text PRIMARY KEY, owner text (NULL = nobody holds it),
//     expiry_ms bigint, renewed_at_ms bigint, term bigint
//   <table>_terms (logged), one row per lease name ever taken:
//     name text PRIMARY KEY, term bigint (the last term granted),
//     ttl_ms bigint (the largest TTL ever granted)
//
// expiry_ms and renewed_at_ms are epoch milliseconds of the CALLER's clock
// (the `now` passed in), never the server's now(), so every replica and every
// store compares the same instants. The tables are created when absent
// (`create_table`), or by the statements schema_sql() returns, run once by a
// migration.
//
// Why two tables: lease state lives seconds; only the fencing term must be
// durable and never repeat. Writes to an UNLOGGED table write no WAL, so
// renew, release, the holder's re-acquire and refused acquires commit
// without waiting for a WAL flush; the terms table is written (and flushed)
// only on a change of hands, a name's first grant, or a grant with a larger
// TTL than any before (and once for a row of the one-table layout that has
// no record yet). Each connection raises synchronous_commit from `off`
// to `on` for its session, so a change of hands is durable before it is
// reported (with asynchronous replication a failover can still lose the
// last commits, terms included, as it can any data; use synchronous
// replication where terms must survive a failover).
//
// Crash or failover: PostgreSQL empties UNLOGGED tables then. A name with a
// terms row but no live row means "the state was lost": the next acquire
// QUARANTINES it — creates the live row with nobody holding it, expiring at
// that acquire's now + the recorded TTL, and refuses; the name is granted
// only after that, at term = recorded term + 1. The old holder's last proven
// renewal was sent before the crash with a TTL no larger than the recorded
// one, and a holder steps down within TTL − TTL/6 of that send
// (forgemeter/campaign.h), so it has stepped down before the quarantine ends
// (given replicas' clocks that agree, as every expiry assumes). Its renew
// meanwhile finds no row, or nobody's, and is refused. inspect reports the
// recorded term for a name without a live row, so a term never appears to
// go backwards.
//
// From the one-table layout of earlier versions (a LOGGED <table>): a store
// works on it as it is (every write then waits for a WAL flush); the
// statements migration_from_logged_sql() returns record every row's term and
// TTL in <table>_terms and make <table> UNLOGGED, in one transaction. Run it
// once, after every replica runs this version.
//
// Each decision is one statement on a prepared statement: acquire grants by
// one conditional upsert (and refuses by it, or by its guard read alone),
// renew is one conditional UPDATE, release one UPDATE conditioned on the
// owner. A store also remembers, per name, what its own answers proved (the
// last holder seen; the largest TTL the terms record covers) and first sends
// the shorter statement this allows: the guard read alone for a candidate
// polling a lease it saw held by another (or knows nothing of), renew's UPDATE
// without the record check, release's UPDATE alone for the holder. That
// answer is the call's when it decides the call; when the hint was stale (the
// lease was free, expired or another's) the call goes on to the full
// statement within the same deadline: two round trips, about once per change
// of hands. The answers are the same either way (the tests change a lease
// under a store's hints through another store). Every value is a parameter (the table names, validated and quoted, are the only
// text put into SQL). The statements run in autocommit under READ COMMITTED,
// which is enough because each decides on the latest committed version of
// the live row under that row's lock: ON CONFLICT DO UPDATE and UPDATE lock
// the row and re-check their condition on its newest version after any wait,
// and FOR UPDATE reads the newest version. Racing candidates thus serialise on
// the row lock and each sees the outcome of the one before. The answers taken
// from the statement's snapshot instead are acquire's refusal of a lease
// someone else held unexpired at that snapshot — true at that instant, so a
// candidate's polling writes and locks nothing —, release's answer for a
// lease the caller did not hold at that snapshot (below), and the terms row
// read beside them: its values only rise and it is written only by a statement that
// holds the live row's lock, so a stale read of it can only cause a
// redundant write, never a missed one. Each call's answer is the lease's
// state at one instant during the call; no stronger isolation level is
// needed. (release tells a free lease, `not_held`, from another's, `lost`,
// on the locked row when the caller's own lease changed hands meanwhile; from
// the snapshot, true at that instant, when the caller did not hold it there,
// so a candidate's release never waits for another session's row lock.)
//
// Deadlines and stops: every call is bounded by its Deadline, connecting and
// resolving host names included (asynchronous libpq driven by poll(); the
// connection attempt, whose getaddrinfo() blocks inside libpq, runs on a
// helper thread the call waits for within its bound), and ends at once when
// the Deadline's stop is requested. A deadline passed or a stop requested
// before the call fails at once and sends nothing. When either comes while a
// statement is out, the call closes the connection and answers `no_answer`
// — the write may still have landed — and the statement is ended on the
// server: PostgreSQL 14+ sessions set client_connection_check_interval
// (100 ms), so the server ends a statement whose client has gone (a lock wait
// included) without any cancel request, which a frozen server (SIGSTOP) could
// hold; older servers get libpq's cancel request on a background thread. The
// next call connects afresh. Waits are measured both on the Deadline's clock
// and on the real monotonic clock, so a ManualClock deadline cannot hang a
// call. Connections also set libpq's connect_timeout, TCP keepalives (first
// probe after `keepalive_idle`, then 3 probes 3 s apart) and
// tcp_user_timeout, so a dead peer is noticed on idle connections too.
//
// Connections: each store keeps a small pool (up to `max_connections`), opened
// lazily; a call takes an idle connection or opens one, so concurrent
// campaigns on one store never queue behind each other's round trips while the
// pool has room. A connection the server closed while idle is noticed before
// the statement is sent and replaced. Separate store objects never share
// connections.
//
// Thread-safety: every method may be called from many threads at once.
// Ownership: the store owns its connections; destroying it closes them (do not
// destroy it while calls are in flight).
// Errors: outcomes are LeaseResult values; `invalid` for arguments that break
// the contract (checked before anything is sent), `no_answer` for everything
// that kept an answer from arriving (unreachable server, deadline, server
// error), with the reason in `error`. The constructor throws
// std::invalid_argument for an unparsable conninfo, a bad table name or
// max_connections == 0; it does not connect.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "forgemeter/lease.h"

namespace forgemeter {

struct PostgresStoreOptions {
  // A libpq connection string ("host=... dbname=...") or a postgresql:// URI.
  // Empty: libpq's defaults (PGHOST, PGDATABASE, ...). TLS settings are libpq's.
  std::string conninfo;
  // The live table: an identifier ([A-Za-z_][A-Za-z0-9_]*, at most 57 bytes,
  // so that "<table>_terms" fits in 63), optionally schema-qualified
  // ("schema.table"). Quoted, so case is kept.
  std::string table = "forgemeter_leases";
  // Create both tables (CREATE ... IF NOT EXISTS) on the first connection.
  bool create_table = true;
  // Upper bound on open connections. A call that finds all of them busy waits
  // for one until its deadline.
  std::size_t max_connections = 4;
  // Shown in pg_stat_activity; a conninfo that sets application_name wins.
  std::string application_name = "forgemeter";
  // libpq's connect_timeout and TCP keepalive idle time: backstops only —
  // each call's deadline bounds it first.
  std::chrono::seconds connect_timeout{5};
  std::chrono::seconds keepalive_idle{10};
};

class PostgresStore final : public LeaseStore {
 public:
  explicit PostgresStore(PostgresStoreOptions options);
  ~PostgresStore() override;
  PostgresStore(const PostgresStore&) = delete;
  PostgresStore& operator=(const PostgresStore&) = delete;

  LeaseResult acquire(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                      const Deadline& deadline) override;
  LeaseResult renew(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                    const Deadline& deadline) override;
  LeaseResult release(std::string_view name, std::string_view owner, const Deadline& deadline) override;
  LeaseResult inspect(std::string_view name, const Deadline& deadline) override;

  // The migration statements that create both tables (CREATE ... IF NOT
  // EXISTS). Throws std::invalid_argument for a bad table name.
  static std::string schema_sql(std::string_view table = "forgemeter_leases");
  // The migration from the one-logged-table layout (see above): one
  // transaction. Throws std::invalid_argument for a bad table name.
  static std::string migration_from_logged_sql(std::string_view table = "forgemeter_leases");

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace forgemeter
