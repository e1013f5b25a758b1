// forgemeter/postgres_store.h — the lease store shared by replicas, on PostgreSQL.
//
//   forgemeter::PostgresStore store({.conninfo = "host=db.internal dbname=app user=svc"});
//   forgemeter::run(store, spec, stop, work);   // forgemeter/campaign.h
//
// It keeps the contract of forgemeter/lease.h (the conformance suite checks
// it) in ONE table, one row per lease name:
//
//   name text PRIMARY KEY, owner text (NULL = free), expiry_ms bigint,
//   renewed_at_ms bigint, term bigint
//
// expiry_ms and renewed_at_ms are epoch milliseconds of the CALLER's clock
// (the `now` passed in), never the server's now(), so every replica and every
// store compares the same instants. The table is created when absent
// (`create_table`), or by the statement schema_sql() returns, run once by a
// migration.
//
// Each call is one statement, one round trip, on a prepared statement; every
// value is a parameter (the table name, validated and quoted, is the only text
// put into SQL). The statements run in autocommit under READ COMMITTED, which
// is enough because each decides on the latest committed version of the lease
// row under that row's lock: ON CONFLICT DO UPDATE and UPDATE lock the row and
// re-check their condition on its newest version after any wait, and FOR
// UPDATE reads the newest version. Racing candidates thus serialise on the row
// lock and each sees the outcome of the one before. The one answer taken from
// the statement's snapshot instead is acquire's refusal of a lease another
// owner held unexpired at that snapshot — true at that instant, so a
// candidate's polling writes and locks nothing. Each call's answer is the
// lease's state at one instant during the call; no stronger isolation level
// is needed. (release tells a free lease, `not_held`, from another's, `lost`,
// on the locked row.)
//
// Deadlines: every call is bounded by its Deadline, connecting included
// (asynchronous libpq driven by poll()). A deadline already passed fails at
// once and sends nothing. When a deadline passes while a statement is out, the
// call cancels the statement (the cancel request goes out on a background
// thread, so the caller does not wait for it), drops the connection and
// answers `no_answer` — the write may still have landed. The next call
// connects afresh. The wait is measured both on the Deadline's clock and on
// the real monotonic clock, so a ManualClock deadline cannot hang a call.
// Connections also set libpq's connect_timeout, TCP keepalives (first probe
// after `keepalive_idle`, then 3 probes 3 s apart) and tcp_user_timeout, so a
// dead peer is noticed on idle connections and by the cancel requests too.
// One step is outside our hands: libpq resolves a host NAME synchronously
// (getaddrinfo); give an address (host=10.0.0.5, or hostaddr=) where even the
// resolver must not hold a call past its deadline.
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
  // The lease table: an identifier ([A-Za-z_][A-Za-z0-9_]*, at most 63 bytes),
  // optionally schema-qualified ("schema.table"). Quoted, so case is kept.
  std::string table = "forgemeter_leases";
  // Create the table (CREATE TABLE IF NOT EXISTS) on the first connection.
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

  // The migration statement that creates the table (CREATE TABLE IF NOT
  // EXISTS ...). Throws std::invalid_argument for a bad table name.
  static std::string schema_sql(std::string_view table = "forgemeter_leases");

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace forgemeter
