#include "lease/uri/store_check.h"

#include "core/components.h"
#if FORGEMETER_HAS_POSTGRES
#include <libpq-fe.h>
#include <poll.h>
#endif

#include <cerrno>

#include <array>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#if FORGEMETER_HAS_ETCD
#include "forgemeter/etcd_store.h"
#endif
#if FORGEMETER_HAS_POSTGRES
#include "forgemeter/postgres_store.h"
#endif
#include "lease/uri/open_store.h"
#include "lease/uri/secrets.h"
#include "lease/uri/store_error.h"

namespace forgemeter::lease_uri {

namespace {

#if FORGEMETER_HAS_POSTGRES
constexpr std::array<std::string_view, 4> kPermanentStates{"28P01", "28000", "3D000", "42501"};

// One failure line of libpq's message is permanent when the server's SQLSTATE
// (`FATAL:  28P01: …`) is one of the above, or libpq had no password to send.
bool permanent_line(std::string_view line) {
  for (auto state : kPermanentStates) {
    for (std::string_view severity : {"FATAL:  ", "ERROR:  "})
      if (line.find(std::string(severity) + std::string(state) + ":") != std::string_view::npos) return true;
  }
  return line.find("no password supplied") != std::string_view::npos;
}

// libpq's message without its LOCATION, DETAIL and HINT lines, one line; permanent
// when every failure line in it is (several hosts: each must refuse us).
std::pair<bool, std::string> classify(const char* message) {
  std::istringstream in(message != nullptr ? message : "");
  std::string line, text;
  bool any = false, all = true;
  while (std::getline(in, line)) {
    bool detail = false;
    for (std::string_view d : {"LOCATION:", "DETAIL:", "HINT:", "CONTEXT:"}) detail = detail || line.rfind(d, 0) == 0;
    if (line.empty() || detail || line[0] == '\t' || line[0] == ' ') continue;
    any = true;
    all = all && permanent_line(line);
    text += (text.empty() ? "" : "; ") + line;
  }
  return {any && all, text};
}

using Until = std::chrono::steady_clock::time_point;

// Waits until `conn`'s socket is ready for `events` or `until` passes (false).
bool ready(PGconn* conn, short events, Until until) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
  if (left.count() <= 0) return false;
  pollfd p{PQsocket(conn), events, 0};
  return ::poll(&p, 1, static_cast<int>(left.count())) > 0 || errno == EINTR;
}

// Connected. The store creates its two tables (the default names: the CLI
// sets none) on first use and then reads and writes them; a role that may
// not (PostgreSQL 15 grants no CREATE on schema public; tables another role
// created) can never campaign. Empty when it can, or when the answer did not
// come in time.
std::string tables_unusable(PGconn* conn, Until until) {
  const std::string live = forgemeter::PostgresStoreOptions{}.table, terms = live + "_terms";
  const std::string live_q = "\"" + live + "\"", terms_q = "\"" + terms + "\"";
  const char* params[] = {live_q.c_str(), terms_q.c_str()};
  const char* sql =
      "SELECT CASE WHEN to_regclass($1) IS NOT NULL AND to_regclass($2) IS NOT NULL THEN"
      "  CASE WHEN has_table_privilege($1, 'SELECT') AND has_table_privilege($1, 'INSERT')"
      "        AND has_table_privilege($1, 'UPDATE') AND has_table_privilege($2, 'SELECT')"
      "        AND has_table_privilege($2, 'INSERT') AND has_table_privilege($2, 'UPDATE') THEN 'ok' ELSE 'use' END"
      " WHEN coalesce(has_schema_privilege(current_schema(), 'CREATE'), false) THEN 'ok' ELSE 'create' END,"
      " coalesce(current_schema(), '(no schema on the search_path)'), current_user";
  if (PQsetnonblocking(conn, 1) != 0 || PQsendQueryParams(conn, sql, 2, nullptr, params, nullptr, nullptr, 0) == 0)
    return {};
  while (PQflush(conn) == 1)
    if (!ready(conn, POLLOUT, until)) return {};
  while (PQisBusy(conn) != 0) {
    if (!ready(conn, POLLIN, until) || PQconsumeInput(conn) == 0) return {};
  }
  std::string why;
  while (PGresult* r = PQgetResult(conn)) {
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) {
      const std::string verdict = PQgetvalue(r, 0, 0), schema = PQgetvalue(r, 0, 1), role = PQgetvalue(r, 0, 2);
      if (verdict == "create")
        why = "42501: role \"" + role + "\" may not create the lease tables " + live + " and " + terms +
              " in schema \"" + schema + "\", and they do not exist: GRANT CREATE ON SCHEMA " + schema + " TO " + role +
              ", or create them as another role";
      else if (verdict == "use")
        why = "42501: role \"" + role + "\" may not read and write the lease tables " + live + " and " + terms +
              ": GRANT SELECT, INSERT, UPDATE ON " + live + ", " + terms + " TO " + role;
    }
    PQclear(r);
  }
  return why;
}
#endif

#if FORGEMETER_HAS_ETCD
// etcd: a URI from_uri() refuses, or one question the cluster refuses for good.
std::string etcd_misconfiguration(const std::string& store, std::chrono::milliseconds bound) {
  try {
    EtcdStore etcd(EtcdStoreOptions::from_uri(store));
    const LeaseState r = etcd.inspect("forgemeter-store-check", Deadline::after(system_clock(), bound));
    return r.error.find("permanent") != std::string::npos ? scrub(r.error) : std::string();
  } catch (const std::invalid_argument& e) {
    return scrub(e.what());
  }
}
#endif

#if FORGEMETER_HAS_POSTGRES
// A conninfo or postgresql:// URI: libpq's parse, then one connection attempt.
std::string postgres_misconfiguration(const std::string& store, std::chrono::milliseconds bound) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(store.c_str(), &err);
  if (opts == nullptr) {
    std::string why = classify(err != nullptr ? err : "cannot parse the connection string").second;
    if (err != nullptr) PQfreemem(err);
    return scrub(why);
  }
  PQconninfoFree(opts);

  const auto until = std::chrono::steady_clock::now() + bound;
  const char* keys[] = {"dbname", "application_name", nullptr};
  const char* values[] = {store.c_str(), "forgemeter store check", nullptr};
  std::unique_ptr<PGconn, void (*)(PGconn*)> conn(PQconnectStartParams(keys, values, 1), PQfinish);
  if (!conn) return {};
  PQsetErrorVerbosity(conn.get(), PQERRORS_VERBOSE);  // before the server answers: its SQLSTATE in the message
  if (PQstatus(conn.get()) == CONNECTION_BAD) {
    // Options are checked before anything is sent; a host name that does not resolve fails here too.
    auto [permanent, text] = classify(PQerrorMessage(conn.get()));
    return permanent || text.rfind("invalid ", 0) == 0 ? scrub(text) : std::string();
  }
  PostgresPollingStatusType st = PGRES_POLLING_WRITING;
  while (st != PGRES_POLLING_OK && st != PGRES_POLLING_FAILED) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return {};  // no answer in time: maybe later, the campaign will see
    pollfd p{PQsocket(conn.get()), static_cast<short>(st == PGRES_POLLING_READING ? POLLIN : POLLOUT), 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) < 0 && errno != EINTR) return {};
    st = PQconnectPoll(conn.get());
  }
  if (st == PGRES_POLLING_OK) return scrub(tables_unusable(conn.get(), until));
  auto [permanent, text] = classify(PQerrorMessage(conn.get()));
  return permanent ? scrub(text) : std::string();
}
#endif

}  // namespace

std::string store_misconfiguration(const std::string& store, [[maybe_unused]] std::chrono::milliseconds bound) {
  if (store == "memory:") return {};
#if FORGEMETER_HAS_ETCD
  if (is_etcd(store)) return etcd_misconfiguration(store, bound);
#endif
#if FORGEMETER_HAS_POSTGRES
  if (!is_etcd(store)) return postgres_misconfiguration(store, bound);
#endif
  try {
    check_store_kind(store);  // a store this build does not have: it says so
  } catch (const StoreError& e) {
    return e.what();
  }
  return {};
}

void require_workable_store(const std::string& store, std::chrono::milliseconds bound, bool would_retry) {
  if (std::string why = store_misconfiguration(store, bound); !why.empty())
    throw StoreError(
        StoreError::Kind::refused,
        fmt::format(
            "the lease store refuses this configuration{}: {}; fix the store "
            "(user, password, database or prefix, TLS files: --store, --store-file, FORGEMETER_STORE, PGPASSFILE)",
            would_retry ? ", retrying cannot help" : "", why));
}

}  // namespace forgemeter::lease_uri
