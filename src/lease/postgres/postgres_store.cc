#include "forgemeter/postgres_store.h"

#include <atomic>
#include <charconv>
#include <stdexcept>

#include "core/terminal_text.h"
#include "lease/change_board.h"
#include "lease/postgres/connection.h"
#include "lease/postgres/listener.h"
#include "lease/postgres/pool.h"
#include "lease/postgres/proven.h"
#include "lease/postgres/schema.h"
#include "lease/postgres/statements.h"
#include "lease/transition.h"

namespace forgemeter {
namespace {

using std::chrono::duration_cast;
using std::chrono::milliseconds;

constexpr std::uint64_t kMaxTerm = 9223372036854775807;  // bigint's largest: a term that cannot increase
constexpr const char* kClientCheck = "SET client_connection_check_interval = 100";  // milliseconds

// The contract's millisecond truncation (floor), as text parameters.
std::string to_ms(WallTime t) { return std::to_string(lease_stamp(t).time_since_epoch().count()); }

std::string plus_ms(WallTime t, Duration ttl) {
  return std::to_string((lease_stamp(t) + lease_ttl(ttl)).time_since_epoch().count());
}

LeaseResult failed(LeaseStatus status, std::string_view why) {
  LeaseResult r;
  r.status = status;
  r.error = "PostgreSQL lease store: " + core_detail::terminal_text(why);
  return r;
}

template <typename T>
T number(std::string_view text) {
  T v{};
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

// Fills holder/expiry/term from columns (owner, expiry_ms, term) starting at `col`.
void describe(LeaseResult& r, const pg::Rows& rows, int col) {
  r.holder = rows.null(0, col) ? std::string() : std::string(rows.text(0, col));
  // A free lease reports the epoch as its expiry.
  r.expiry = r.holder.empty() ? UtcMillis{} : UtcMillis(milliseconds(number<std::int64_t>(rows.text(0, col + 1))));
  r.term = number<std::uint64_t>(rows.text(0, col + 2));
}

bool is_true(std::string_view t) { return t == "t"; }

}  // namespace

struct PostgresStore::Impl {
  explicit Impl(PostgresStoreOptions o)
      : options(std::move(o)),
        tables(pg::quoted_tables(options.table)),
        prepare(pg::prepare_sql(tables, pg::channel_of(options.table))),
        pool(settings(), options.max_connections,
             [this](pg::Connection& c, const pg::CallBound& b) { return setup(c, b); }),
        listener(settings(), pg::channel_of(options.table), changes) {}

  pg::ConnectSettings settings() const {
    return {options.conninfo, options.application_name, options.connect_timeout, options.keepalive_idle};
  }

  std::string setup(pg::Connection& c, const pg::CallBound& bound) {
    // PostgreSQL 14+ ends a statement whose client closed the connection
    // within client_connection_check_interval (where the server's platform
    // can tell; else the SET fails and abandoned statements get a cancel
    // request instead): an abandoned call then needs no cancel request, which
    // a frozen server could hold (lease/postgres/connection.h).
    if (c.server_version() >= 140000) {
      auto checked = c.exec_simple(kClientCheck, bound);
      if (checked.kind == pg::Outcome::Kind::no_answer) return "setting up the session: " + checked.error;
      c.set_server_ends_abandoned(checked.ok());
    }
    if (options.create_table && !table_ready.load(std::memory_order_acquire)) {
      auto made = c.exec_simple(pg::create_tables_serialised_sql(tables).c_str(), bound);
      // Serialised by an advisory lock; should another client create it
      // without one, the loser of that race reports a duplicate: it exists.
      bool exists = made.ok() || made.sqlstate == "23505" || made.sqlstate == "42P07" || made.sqlstate == "42710";
      if (!exists) return "creating tables " + tables.live + ", " + tables.terms + ": " + made.error;
      table_ready.store(true, std::memory_order_release);
    }
    auto prepared = c.exec_simple(prepare.c_str(), bound);
    if (!prepared.ok())
      return "preparing statements on tables " + tables.live + ", " + tables.terms + ": " + prepared.error;
    return {};
  }

  // Runs one prepared statement; `read` turns its rows into the result.
  template <typename Read>
  LeaseResult call(const char* statement, std::initializer_list<const char*> params, const Deadline& deadline,
                   Read read) {
    pg::CallBound bound(deadline);
    if (bound.passed())
      return failed(LeaseStatus::no_answer, bound.stopped() ? "stopped before the call; nothing sent"
                                                            : "deadline passed before the call; nothing sent");
    std::string error;
    auto conn = pool.checkout(bound, error);
    if (!conn) return failed(LeaseStatus::no_answer, error);
    auto out = conn->exec_prepared(statement, {params.begin(), params.size()}, bound);
    if (out.kind == pg::Outcome::Kind::no_answer) return failed(LeaseStatus::no_answer, out.error);
    if (out.kind == pg::Outcome::Kind::server_error) {
      // Class 22 (data exception, e.g. bytes that are not UTF-8): the
      // statement was refused before it wrote anything.
      bool data = out.sqlstate.rfind("22", 0) == 0;
      return failed(data ? LeaseStatus::invalid : LeaseStatus::no_answer,
                    "server error " + out.sqlstate + ": " + out.error);
    }
    return read(out.rows);
  }

  PostgresStoreOptions options;
  pg::Tables tables;
  std::string prepare;
  std::atomic<bool> table_ready{false};
  pg::Pool pool;
  pg::Proven proven;
  lease_detail::ChangeBoard changes;
  pg::Listener listener;  // after `changes`: stopped and joined before it goes

  // Remembers the holder an answer showed (every answer shows one).
  const LeaseResult& saw(std::string_view name, const LeaseResult& r) {
    if (r.status != LeaseStatus::no_answer && r.status != LeaseStatus::invalid) proven.saw_holder(name, r.holder);
    return r;
  }
};

namespace {

PostgresStoreOptions checked(PostgresStoreOptions o) {
  if (auto why = pg::check_table_name(o.table)) throw std::invalid_argument("PostgresStore: " + *why);
  if (auto why = pg::check_conninfo(o.conninfo))
    throw std::invalid_argument("PostgresStore: unusable conninfo: " + *why);
  if (o.max_connections == 0) throw std::invalid_argument("PostgresStore: max_connections must be at least 1");
  if (o.application_name.find('\0') != std::string::npos)
    throw std::invalid_argument("PostgresStore: application_name contains NUL");
  return o;
}

// Rows of acquire/renew: granted, owner, expiry_ms, term (renew's: resign too).
LeaseResult granted_or_refused(const pg::Rows& rows) {
  LeaseResult r;
  if (rows.count() == 0) {
    r.status = LeaseStatus::refused;  // no such lease: renew never creates one
    return r;
  }
  r.status = is_true(rows.text(0, 0)) ? LeaseStatus::granted : LeaseStatus::refused;
  describe(r, rows, 1);
  r.resign_requested = r.status == LeaseStatus::granted && rows.columns() > 4 && is_true(rows.text(0, 4));
  if (rows.columns() > 5 && !rows.null(0, 5))
    r.store_now = UtcMillis(milliseconds(number<std::int64_t>(rows.text(0, 5))));
  return r;
}

}  // namespace

PostgresStore::PostgresStore(PostgresStoreOptions options)
    : impl_(std::make_unique<Impl>(checked(std::move(options)))) {}

PostgresStore::~PostgresStore() = default;

namespace {

pg::Tables named(std::string_view table) {
  if (auto why = pg::check_table_name(table)) throw std::invalid_argument("PostgresStore: " + *why);
  return pg::quoted_tables(table);
}

}  // namespace

std::string PostgresStore::schema_sql(std::string_view table) { return pg::create_tables_sql(named(table)) + ";\n"; }

std::string PostgresStore::migration_from_logged_sql(std::string_view table) {
  return pg::migrate_from_logged_sql(named(table));
}

// acquire, renew and release first send the cheaper statement that what this
// store has proven allows (lease/postgres/proven.h); its answer is the call's
// when it is decisive, else the call goes on, within the same deadline, to the
// full statement. So a candidate's polls of a held lease (the first one too),
// renewals, the holder's re-acquire and its release are each one short
// statement; two round trips are paid only where the hint was wrong: a
// candidate whose probe finds the lease free or expired (once per change of
// hands, or the first call for a name), a holder that lost it.
LeaseResult PostgresStore::acquire(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                                   const Deadline& deadline) {
  if (auto why = check_lease_args(name, owner, ttl)) return failed(LeaseStatus::invalid, *why);
  std::string n(name), o(owner), at = to_ms(now), until = plus_ms(now, ttl);
  const auto seen = impl_->proven.get(name);
  const std::int64_t ttl_ms = lease_ttl(ttl).count();
  if (!seen.known || (!seen.holder.empty() && seen.holder != owner)) {
    auto probed = impl_->call(pg::kProbeHeld, {n.c_str(), o.c_str(), at.c_str()}, deadline, [](const pg::Rows& rows) {
      if (rows.count() > 0) return granted_or_refused(rows);
      LeaseResult go_on;
      go_on.status = LeaseStatus::not_held;  // not held by another now: ask acquire
      return go_on;
    });
    if (probed.status != LeaseStatus::not_held) return impl_->saw(name, probed);
  } else if (seen.holder == owner && ttl_ms <= seen.recorded_ttl_ms) {
    // The caller's own row: acquire would do to it exactly what renew does.
    auto renewed =
        impl_->call(pg::kRenewCovered, {n.c_str(), o.c_str(), at.c_str(), until.c_str()}, deadline, granted_or_refused);
    renewed.resign_requested = false;  // renew's answer alone carries them (lease.h)
    renewed.store_now = UtcMillis{};
    if (renewed.status != LeaseStatus::refused) return impl_->saw(name, renewed);
  }
  auto r = impl_->call(pg::kAcquire, {n.c_str(), o.c_str(), at.c_str(), until.c_str()}, deadline, granted_or_refused);
  if (r.status == LeaseStatus::granted) impl_->proven.recorded(name, ttl_ms);
  // Refused although free or expired at now: its term cannot increase (statements.cc, G).
  if (r.status == LeaseStatus::refused && r.term == kMaxTerm && r.expiry <= lease_stamp(now))
    r.error = lease_detail::term_exhausted_error(r.term);
  return impl_->saw(name, r);
}

LeaseResult PostgresStore::renew(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                                 const Deadline& deadline) {
  if (auto why = check_lease_args(name, owner, ttl)) return failed(LeaseStatus::invalid, *why);
  std::string n(name), o(owner), at = to_ms(now), until = plus_ms(now, ttl);
  const std::int64_t ttl_ms = lease_ttl(ttl).count();
  const bool covered = ttl_ms <= impl_->proven.get(name).recorded_ttl_ms;
  auto r = impl_->call(covered ? pg::kRenewCovered : pg::kRenew, {n.c_str(), o.c_str(), at.c_str(), until.c_str()},
                       deadline, granted_or_refused);
  if (r.status == LeaseStatus::granted && !covered) impl_->proven.recorded(name, ttl_ms);
  return impl_->saw(name, r);
}

LeaseResult PostgresStore::release(std::string_view name, std::string_view owner, const Deadline& deadline) {
  if (auto why = check_lease_args(name, owner)) return failed(LeaseStatus::invalid, *why);
  std::string n(name), o(owner);
  if (impl_->proven.get(name).holder == owner) {
    auto mine = impl_->call(pg::kReleaseHeld, {n.c_str(), o.c_str()}, deadline, [](const pg::Rows& rows) {
      LeaseResult r;
      r.status = LeaseStatus::refused;  // not the caller's now: ask release whose it is
      if (rows.count() == 0) return r;
      r.status = LeaseStatus::released;
      r.term = number<std::uint64_t>(rows.text(0, 0));
      return r;
    });
    if (mine.status != LeaseStatus::refused) return impl_->saw(name, mine);
  }
  return impl_->saw(name, impl_->call(pg::kRelease, {n.c_str(), o.c_str()}, deadline, [](const pg::Rows& rows) {
    LeaseResult r;
    r.status = LeaseStatus::not_held;  // no row: never taken
    if (rows.count() == 0) return r;
    describe(r, rows, 1);
    if (is_true(rows.text(0, 0))) {
      r.status = LeaseStatus::released;
      r.holder.clear();  // as the store left it: free
      r.expiry = UtcMillis{};
    } else if (!r.holder.empty()) {
      r.status = LeaseStatus::lost;
    }
    return r;
  }));
}

std::uint64_t PostgresStore::change_mark(std::string_view name) {
  impl_->listener.start();  // a candidate's first mark opens the listening session
  return impl_->changes.mark(name);
}

bool PostgresStore::wait_for_change(std::string_view name, std::uint64_t mark, const Deadline& deadline) {
  return impl_->changes.wait(name, mark, deadline);
}

bool PostgresStore::listening() const { return impl_->listener.listening(); }

LeaseResult PostgresStore::resign(std::string_view name, const Deadline& deadline) {
  if (auto why = check_lease_name(name)) return failed(LeaseStatus::invalid, *why);
  std::string n(name);
  return impl_->call(pg::kResign, {n.c_str()}, deadline, [](const pg::Rows& rows) {
    LeaseResult r;
    r.status = LeaseStatus::not_held;
    if (rows.count() == 0) return r;
    describe(r, rows, 1);
    if (is_true(rows.text(0, 0))) r.status = LeaseStatus::granted;
    return r;
  });
}

LeaseState PostgresStore::inspect(std::string_view name, const Deadline& deadline) {
  if (auto why = check_lease_name(name)) return lease_detail::state_of(failed(LeaseStatus::invalid, *why));
  std::string n(name);
  // state_of() tells held from free by the holder the row shows, whatever
  // answered status the read carries (lease/transition.h).
  return lease_detail::state_of(
      impl_->saw(name, impl_->call(pg::kInspect, {n.c_str()}, deadline, [](const pg::Rows& rows) {
        LeaseResult r;
        r.status = LeaseStatus::granted;
        if (rows.count() > 0) describe(r, rows, 0);  // owner NULL: free (or quarantined), the term as recorded
        return r;
      })));
}

}  // namespace forgemeter
