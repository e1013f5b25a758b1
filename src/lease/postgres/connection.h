// Internal: one libpq connection driven asynchronously, every step bounded.
//
// Every wait ends at the call's bound or its stop (wait.h). Connecting runs
// on a helper thread the caller waits for within its bound, because libpq
// resolves host names with a blocking getaddrinfo(). A statement abandoned
// (deadline or stop) marks the connection broken; the pool closes it at once,
// and the statement is ended on the server: by the server itself when it
// checks its client (client_connection_check_interval, PostgreSQL 14+, set by
// the store's setup: set_server_ends_abandoned), else by a cancel request
// sent off the caller's thread (canceller.h).
//
// Not thread-safe: one caller at a time (the pool hands it to one call).
#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lease/call_bound.h"

namespace forgemeter::pg {

using lease_detail::CallBound;
using lease_detail::Ready;
using lease_detail::wait_socket;

struct ConnectSettings {
  std::string conninfo;  // conninfo string or URI, expanded by libpq
  std::string application_name;
  std::chrono::seconds connect_timeout{5};
  std::chrono::seconds keepalive_idle{10};
};

// Why libpq cannot parse `conninfo`, or nullopt when it can.
std::optional<std::string> check_conninfo(const std::string& conninfo);

// The rows of one answer (text format).
class Rows {
 public:
  Rows() = default;
  explicit Rows(PGresult* r) : r_(r, &PQclear) {}
  int count() const { return r_ ? PQntuples(r_.get()) : 0; }
  int columns() const { return r_ ? PQnfields(r_.get()) : 0; }
  bool null(int row, int col) const { return PQgetisnull(r_.get(), row, col) != 0; }
  std::string_view text(int row, int col) const {
    return {PQgetvalue(r_.get(), row, col), static_cast<std::size_t>(PQgetlength(r_.get(), row, col))};
  }

 private:
  std::unique_ptr<PGresult, void (*)(PGresult*)> r_{nullptr, &PQclear};
};

struct Outcome {
  enum class Kind { ok, server_error, no_answer };
  Kind kind = Kind::no_answer;
  Rows rows;
  std::string error;     // server_error / no_answer: what happened
  std::string sqlstate;  // server_error: the SQLSTATE
  bool ok() const { return kind == Kind::ok; }
};

class Connection {
 public:
  // Connects within `bound`. On failure returns nullptr and sets `error`.
  static std::unique_ptr<Connection> open(const ConnectSettings& settings, const CallBound& bound, std::string& error);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // An idle connection is usable unless the server closed it (or sent
  // something unasked); checked without blocking.
  bool usable_when_idle();

  // One prepared statement with text parameters (none may be null).
  Outcome exec_prepared(const char* statement, std::span<const char* const> params, const CallBound& bound);
  // A simple query (may hold several statements; the first error wins).
  Outcome exec_simple(const char* sql, const CallBound& bound);

  // For a session that LISTENs: waits until a notification arrives, the
  // connection fails, or the bound passes (or stops); appends the payloads of
  // the notifications received. false: the connection is lost (broken()).
  bool await_notifications(const CallBound& bound, std::vector<std::string>& payloads);

  // True once the connection cannot be reused (a statement was abandoned, the
  // server went away): the pool drops it.
  bool broken() const { return broken_; }
  int backend_pid() const { return PQbackendPID(conn_); }
  int server_version() const { return PQserverVersion(conn_); }
  // The server ends a statement whose client went away on its own (set once
  // the session's client_connection_check_interval is on): no cancel request.
  void set_server_ends_abandoned(bool on) { server_ends_abandoned_ = on; }

 private:
  struct Attempt;
  explicit Connection(PGconn* c) : conn_(c) {}
  static std::unique_ptr<Connection> connect_here(const ConnectSettings& s, const CallBound& bound, std::string& error);
  Outcome finish_call(bool sent, const CallBound& bound);
  bool flush(const CallBound& bound, Outcome& out);
  Outcome abandon(Ready why, bool sending);  // mark broken; end the statement on the server

  PGconn* conn_;
  bool broken_ = false;
  bool server_ends_abandoned_ = false;
};

}  // namespace forgemeter::pg
