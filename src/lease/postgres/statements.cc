#include "lease/postgres/statements.h"

#include <fmt/format.h>

namespace forgemeter::pg {

// Every statement is linearizable at one instant of its execution (READ
// COMMITTED, autocommit):
//
// acquire: first plain reads (the statement's snapshot) of the live row and
// of the durable record. When the live row shows someone else's unexpired
// lease — another owner's, or nobody's while quarantined — refuse from it:
// true at the snapshot's instant, and nothing is written or locked (the
// INSERT's source yields no row: no xid, no WAL, no row lock). Otherwise the
// upsert, whose DO UPDATE has no WHERE: it locks the latest committed version
// of the live row and decides on it (G = the caller's, or expired at now; a
// released row has expiry 0); a refusal there writes the row back unchanged,
// so RETURNING always reports the row as it stands under the lock, and
// `granted` is "the owner is now the caller".
// A lease whose term is bigint's largest cannot change hands: G refuses it
// (the store's acquire tells that refusal by its term and expiry, and says why).
// When there is no live row, the INSERT decides what it creates: with no
// durable record the name was never taken — the caller takes it, term 1;
// with one, the live state was lost (a crash or a failover empties UNLOGGED
// tables) — it creates the row QUARANTINED: nobody holds it until now + the
// largest TTL ever granted, at the recorded term, and refuses. The old
// holder's last proven renewal was before the loss, so it has stepped down
// by then; the next change of hands gets recorded term + 1. A concurrent
// candidate's INSERT conflicts and decides on the committed row instead.
// Then `rec`: a granted call whose term or TTL the snapshot's durable record
// does not cover raises the record, in the same transaction. The record's
// values only rise and every write of it is preceded by a lock of the live
// row, so a stale snapshot only costs a redundant write, never a missed one:
// after every commit, record.term >= live.term and record.ttl_ms >= every TTL
// granted (for a row of the one-table layout without a record: from its
// first grant by a two-table store, or from the migration that records it).
//
// renew: one UPDATE of the live row, whose SET changes it only when the caller
// holds it; like the upsert it locks the latest version and decides on it
// (READ COMMITTED re-reads it after any wait), and a refusal writes the row
// back unchanged so RETURNING reports the holder as it stands. It never
// inserts: no row (never taken, or lost in a crash), no lease, no answer row.
// `rec` as in acquire (only a larger TTL can need it).
//
// release: one UPDATE conditioned on the owner (re-checked on the latest
// version after any wait). When it matched nothing and the statement's
// snapshot shows the lease free or another's, that is the answer: the UPDATE
// judged that same version (a row not the caller's in the snapshot is skipped
// without waiting for its lock), so "free" (not_held) or "another's" (lost)
// is the lease's state at the snapshot's instant, and a caller that does not
// hold the lease never waits for another session's row lock (a candidate's
// release after an abandoned attempt is answered while the row is locked).
// Only when the snapshot shows the caller's lease but the UPDATE, re-checking
// the latest version, no longer matched (it changed hands meanwhile) is the
// row read FOR UPDATE, its latest version, to tell free from another's.
//
// renew_covered: renew's UPDATE alone, for a renewal whose TTL the durable
// record is known to cover (lease/postgres/proven.h): `rec` could not fire.
//
// release_held: release's UPDATE alone, for a caller that last saw itself
// holding the lease: a row is its answer (released); no row, and the call
// goes on to release to learn whether the lease is free or another's.
//
// probe_held: a candidate's first question about a lease it last saw held by
// someone else: the row if it is still someone else's and unexpired at now —
// a refusal true at the snapshot's instant, acquire's own guard. No row
// (released, expired, lost): the call goes on to acquire.
//
// NOTIFY: a release that freed the lease (release, release_held) and a full
// acquire that granted the lease to an owner the snapshot did not show
// holding it (a change of hands) call pg_notify(channel, name) in the same
// statement, so the notification is sent exactly when the write commits and
// never for a renewal (renew, renew_covered, the holder's re-acquire). It only
// wakes a waiting candidate, whose acquire decides (lease/postgres/listener.h).
//
// server_ms (renew, renew_covered): the server's now() in epoch ms, read in
// the same statement — the campaign's clock check (LeaseResult::store_now)
// costs no round trip.
//
// resign: one UPDATE that keeps, beside a held lease, the term whose holder
// is asked to step down (resign_term), with pg_notify(channel, name) in the
// same statement so a holder waiting for its next renewal wakes; renew and
// renew_covered return `resign` (the caller holds the lease and its term was
// asked) from the row they already lock: no extra round trip. A change of
// hands raises the term, so a request is never applied to a later term. A
// free lease (or a quarantined one) is not asked: one row, `asked` false,
// with the term as inspect reads it.
//
// inspect: always one row: the live row; without one, nobody holds it and the
// term is the durable record's (0 without one: never taken), so a term never
// appears to go backwards after the live state was lost. (COALESCE evaluates
// the record's subquery only when there is no live row.)
//
// The script of those statements, prepared once a session (prepare_sql():
// their names, the tables and the shared parts are fmt's named arguments).
// Generic plans from the first execution: every statement is a primary-key
// lookup whatever the parameters, and re-planning would cost more than it runs.
constexpr std::string_view kSessionScript =
    "SET plan_cache_mode = force_generic_plan;\n"
    "SELECT set_config('synchronous_commit', 'on', false) WHERE current_setting('synchronous_commit') = 'off';\n"
    "PREPARE {acq}(text, text, bigint, bigint) AS\n"
    "WITH cur AS (SELECT owner, expiry_ms, term FROM {t} WHERE name = $1),\n"
    "dur AS (SELECT term, ttl_ms FROM {d} WHERE name = $1),\n"
    "up AS (INSERT INTO {t} AS l (name, owner, expiry_ms, renewed_at_ms, term)\n"
    "       SELECT $1, CASE WHEN d.term IS NULL THEN $2 END,\n"
    "              CASE WHEN d.term IS NULL THEN $4 ELSE $3 + d.ttl_ms END, $3, coalesce(d.term, 1)\n"
    "       FROM (SELECT) one LEFT JOIN dur d ON true\n"
    "       WHERE NOT EXISTS (SELECT FROM cur WHERE {held_by_other})\n"
    "       ON CONFLICT (name) DO UPDATE SET\n"
    "         owner = CASE WHEN {G} THEN $2 ELSE l.owner END,\n"
    "         expiry_ms = CASE WHEN l.owner = $2 THEN greatest(l.expiry_ms, $4) WHEN {G} THEN $4\n"
    "                          ELSE l.expiry_ms END,\n"
    "         renewed_at_ms = CASE WHEN l.owner = $2 THEN greatest(l.renewed_at_ms, $3) WHEN {G} THEN $3\n"
    "                              ELSE l.renewed_at_ms END,\n"
    "         term = CASE WHEN {G} AND l.owner IS DISTINCT FROM $2 THEN l.term + 1 ELSE l.term END\n"
    "       RETURNING coalesce(l.owner = $2, false) AS granted, l.owner, l.expiry_ms, l.term),\n"
    "{rec_up}"
    ", woke AS (SELECT pg_notify({chan}, $1) FROM up WHERE granted AND NOT EXISTS (SELECT FROM cur WHERE owner = "
    "$2))\n"
    "SELECT a.* FROM up a LEFT JOIN woke ON true\n"
    "UNION ALL SELECT false, owner, expiry_ms, term FROM cur WHERE NOT EXISTS (SELECT FROM up);\n"
    "PREPARE {ren}(text, text, bigint, bigint) AS\n"
    "WITH up AS ({renew_update}),\n"
    "dur AS (SELECT term, ttl_ms FROM {d} WHERE name = $1),\n"
    "{rec_up}"
    "SELECT * FROM up;\n"
    "PREPARE {ren_c}(text, text, bigint, bigint) AS\n"
    "{renew_update};\n"
    "PREPARE {probe}(text, text, bigint) AS\n"
    "SELECT false, owner, expiry_ms, term FROM {t} WHERE name = $1 AND {held_by_other};\n"
    "PREPARE {rel_h}(text, text) AS\n"
    "WITH upd AS ({release_update})\n"
    "SELECT term, pg_notify({chan}, $1) FROM upd;\n"
    "PREPARE {rel}(text, text) AS\n"
    "WITH upd AS ({release_update}),\n"
    "seen AS (SELECT owner, expiry_ms, term FROM {t} WHERE name = $1),\n"
    "held AS (SELECT owner, expiry_ms, term FROM {t} WHERE name = $1 AND NOT EXISTS (SELECT 1 FROM upd)\n"
    "         AND EXISTS (SELECT 1 FROM seen WHERE owner = $2) FOR UPDATE),\n"
    "woke AS (SELECT pg_notify({chan}, $1) FROM upd)\n"
    "SELECT true, NULL::text, 0::bigint, term FROM upd LEFT JOIN woke ON true\n"
    "UNION ALL SELECT false, owner, expiry_ms, term FROM seen\n"
    "  WHERE owner IS DISTINCT FROM $2 AND NOT EXISTS (SELECT 1 FROM upd)\n"
    "UNION ALL SELECT false, owner, expiry_ms, term FROM held;\n"
    "PREPARE {res}(text) AS\n"
    "WITH up AS (UPDATE {t} AS l SET resign_term = l.term WHERE l.name = $1 AND l.owner IS NOT NULL\n"
    "            RETURNING l.owner, l.expiry_ms, l.term),\n"
    "woke AS (SELECT pg_notify({chan}, $1) FROM up)\n"
    "SELECT true, u.owner, u.expiry_ms, u.term FROM up u LEFT JOIN woke ON true\n"
    "UNION ALL SELECT false, NULL::text, 0::bigint,\n"
    "  coalesce((SELECT term FROM {t} WHERE name = $1), (SELECT term FROM {d} WHERE name = $1), 0)\n"
    "  WHERE NOT EXISTS (SELECT FROM up);\n"
    "PREPARE {ins}(text) AS\n"
    "SELECT l.owner, l.expiry_ms, coalesce(l.term, (SELECT term FROM {d} WHERE name = $1), 0)\n"
    "FROM (SELECT) one LEFT JOIN {t} l ON l.name = $1;\n";

std::string prepare_sql(const Tables& t, std::string_view channel) {
  std::string chan = "'";
  for (char c : channel) {
    if (c == '\'') chan += '\'';
    chan += c;
  }
  chan += '\'';
  // `rec`: the durable record raised for a granted answer row of `up`
  // that the snapshot's record `dur` does not cover. $4 - $3: the TTL.
  const std::string rec = fmt::format(
      "rec AS (INSERT INTO {d} AS r (name, term, ttl_ms)\n"
      "        SELECT $1, a.term, $4 - $3 FROM up a LEFT JOIN dur d ON true\n"
      "        WHERE a.granted AND (d.term IS NULL OR d.term < a.term OR d.ttl_ms < $4 - $3)\n"
      "        {raise})\n",
      fmt::arg("d", t.terms), fmt::arg("raise", kRaiseRecord));
  // renew's UPDATE; kRenewCovered is it alone.
  const std::string renew_update = fmt::format(
      "UPDATE {t} AS l SET\n"
      "  expiry_ms = CASE WHEN l.owner = $2 THEN greatest(l.expiry_ms, $4) ELSE l.expiry_ms END,\n"
      "  renewed_at_ms = CASE WHEN l.owner = $2 THEN greatest(l.renewed_at_ms, $3) ELSE l.renewed_at_ms END\n"
      "  WHERE l.name = $1 RETURNING coalesce(l.owner = $2, false) AS granted, l.owner, l.expiry_ms, l.term,\n"
      "  coalesce(l.owner = $2 AND l.resign_term = l.term, false) AS resign,\n"
      "  (extract(epoch FROM now()) * 1000)::bigint AS server_ms",
      fmt::arg("t", t.live));
  // release's UPDATE; kReleaseHeld is it alone.
  const std::string release_update =
      fmt::format("UPDATE {t} AS l SET owner = NULL, expiry_ms = 0 WHERE l.name = $1 AND l.owner = $2 RETURNING l.term",
                  fmt::arg("t", t.live));
  return fmt::format(
      kSessionScript, fmt::arg("t", t.live), fmt::arg("d", t.terms), fmt::arg("acq", kAcquire), fmt::arg("ren", kRenew),
      fmt::arg("rel", kRelease), fmt::arg("ins", kInspect), fmt::arg("res", kResign), fmt::arg("rec_up", rec),
      fmt::arg("ren_c", kRenewCovered), fmt::arg("probe", kProbeHeld), fmt::arg("renew_update", renew_update),
      fmt::arg("rel_h", kReleaseHeld), fmt::arg("release_update", release_update), fmt::arg("chan", chan),
      // G: the caller keeps its own, or takes a lease expired at now — unless its
      // term is bigint's largest: it cannot increase, so it is refused (never wraps)
      fmt::arg("G", "(l.owner = $2 OR (l.expiry_ms <= $3 AND l.term < 9223372036854775807))"),
      // acquire's refusal from the snapshot: someone else (or nobody, quarantined) holds it unexpired at now
      fmt::arg("held_by_other", "owner IS DISTINCT FROM $2 AND expiry_ms > $3"));
}

}  // namespace forgemeter::pg
