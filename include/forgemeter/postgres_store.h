// forgemeter/postgres_store.h — the lease store shared by replicas, on PostgreSQL.
//
//   forgemeter::PostgresStore store({.conninfo = "host=db.internal dbname=app user=svc"});
//   forgemeter::campaign(store, spec, stop, work);   // forgemeter/campaign.h
//
// Keeps the contract of forgemeter/lease.h (the conformance suite checks it):
// live leases in an UNLOGGED <table>, fencing terms in a logged <table>_terms
// written only on a change of hands, both created when absent or by
// schema_sql(); stamps are the caller's clock, never the server's. Every call
// is bounded by its Deadline (connecting and resolving names included) and
// ends at once on its stop; a statement left behind is ended on the server.
// Design (tables, crash quarantine, READ COMMITTED, hints): docs/postgres-store.md.
// Wake-ups (LeaseChanges): a release or a change of hands sends NOTIFY in its
// own statement; a candidate's first change_mark() opens one listening
// session outside the pool, which reconnects by itself. Where NOTIFY does not
// arrive (a standby, PgBouncer in transaction mode) candidates poll.
//
// Thread-safety: every method may be called from many threads at once.
// Ownership: the store owns its connections (a pool opened lazily, never shared
// with another store) and closes them when destroyed; do not destroy it while
// calls are in flight.
// Errors: outcomes are LeaseResult values: `invalid` for arguments that break
// the contract (checked before anything is sent), `no_answer` for whatever kept
// an answer from arriving (unreachable server, deadline, stop, server error),
// the reason in `error`. The constructor throws std::invalid_argument for an
// unparsable conninfo, a bad table name or max_connections == 0; it does not
// connect.
#pragma once

#include "forgemeter/export.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "forgemeter/lease.h"

namespace forgemeter {

struct FORGEMETER_API PostgresStoreOptions {
  // A libpq connection string ("host=... dbname=...") or a postgresql:// URI.
  // Empty: libpq's defaults (PGHOST, PGDATABASE, ...). TLS settings are libpq's.
  std::string conninfo{};
  // The live table: an identifier ([A-Za-z_][A-Za-z0-9_]*, at most 57 bytes,
  // so that "<table>_terms" fits in 63), optionally schema-qualified
  // ("schema.table"). Quoted, so case is kept.
  std::string table = "forgemeter_leases";
  // Create both tables (CREATE ... IF NOT EXISTS) on the first connection.
  bool create_table = true;
  // Upper bound on open connections. A call that finds all of them busy waits
  // for one until its deadline or its stop.
  std::size_t max_connections = 4;
  // Shown in pg_stat_activity; a conninfo that sets application_name wins.
  std::string application_name = "forgemeter";
  // libpq's connect_timeout and TCP keepalive idle time: backstops only —
  // each call's deadline bounds it first.
  std::chrono::seconds connect_timeout{5};
  std::chrono::seconds keepalive_idle{10};
};

class FORGEMETER_API PostgresStore final : public LeaseStore, public LeaseChanges {
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
  LeaseState inspect(std::string_view name, const Deadline& deadline) override;
  LeaseResult resign(std::string_view name, const Deadline& deadline) override;
  std::uint64_t change_mark(std::string_view name) override;
  bool wait_for_change(std::string_view name, std::uint64_t mark, const Deadline& deadline) override;
  // The listening session is LISTENing now (false before the first change_mark()).
  bool listening() const;

  // The migration statements that create both tables (CREATE ... IF NOT
  // EXISTS). Throws std::invalid_argument for a bad table name.
  static std::string schema_sql(std::string_view table = "forgemeter_leases");
  // The migration from the one-table layout (a single LOGGED <table>;
  // docs/postgres-store.md says when to run it): one transaction. Throws
  // std::invalid_argument for a bad table name.
  static std::string migration_from_logged_sql(std::string_view table = "forgemeter_leases");

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace forgemeter
