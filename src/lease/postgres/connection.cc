#include "lease/postgres/connection.h"

#include <poll.h>

#include <condition_variable>
#include <system_error>
#include <thread>
#include <vector>

#include "core/ascii.h"
#include "core/mutex.h"
#include "lease/postgres/canceller.h"

namespace forgemeter::pg {
namespace {

// A libpq message without its line end.
std::string said(const char* msg) { return std::string(core_detail::trimmed(msg ? msg : "", true)); }

}  // namespace

std::optional<std::string> check_conninfo(const std::string& conninfo) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(conninfo.c_str(), &err);
  std::optional<std::string> why;
  if (!opts) why = err ? said(err) : "out of memory parsing the connection string";
  if (err) PQfreemem(err);
  if (opts) PQconninfoFree(opts);
  return why;
}

// One connection attempt handed to a helper thread: the caller waits for it
// within its bound, and what an abandoned attempt opens, the helper closes.
struct Connection::Attempt {
  core_detail::Mutex mu;
  std::condition_variable_any cv;
  bool done GUARDED_BY(mu) = false;
  bool abandoned GUARDED_BY(mu) = false;
  std::unique_ptr<Connection> conn GUARDED_BY(mu);
  std::string error GUARDED_BY(mu);
};

std::unique_ptr<Connection> Connection::open(const ConnectSettings& s, const CallBound& bound, std::string& error) {
  if (bound.passed()) {
    error = bound.stopped() ? "stopped before connecting" : "deadline passed before connecting";
    return nullptr;
  }
  // libpq resolves host names with a blocking getaddrinfo(), in
  // PQconnectStartParams (and in PQconnectPoll for a later host of a list):
  // the whole attempt runs on a helper thread, on the real clock with the
  // same time left and the same stop, so the caller waits no longer than its
  // bound even while the resolver hangs.
  auto attempt = std::make_shared<Attempt>();
  try {
    std::thread([attempt, settings = s, d = bound.on_real_clock()] {
      CallBound b(d);
      std::string why;
      auto c = connect_here(settings, b, why);
      core_detail::MutexLock lock(attempt->mu);
      if (attempt->abandoned) return;  // `c` is closed here
      attempt->conn = std::move(c);
      attempt->error = std::move(why);
      attempt->done = true;
      attempt->cv.notify_all();
    }).detach();
  } catch (const std::system_error&) {  // no thread to spare: connect here, as libpq would
    return connect_here(s, bound, error);
  }
  core_detail::UniqueLock lock(attempt->mu);
  while (!attempt->done && !bound.passed())
    attempt->cv.wait_for(lock.native(), bound.deadline().stop, std::chrono::milliseconds(bound.poll_ms()),
                         [&]() REQUIRES(attempt->mu) { return attempt->done; });
  if (attempt->done) {
    error = std::move(attempt->error);
    return std::move(attempt->conn);
  }
  attempt->abandoned = true;
  error = bound.stopped() ? "stopped while connecting" : "no answer: connecting did not finish by the deadline";
  return nullptr;
}

std::unique_ptr<Connection> Connection::connect_here(const ConnectSettings& s, const CallBound& bound,
                                                     std::string& error) {
  const std::string timeout = std::to_string(s.connect_timeout.count());
  const std::string idle = std::to_string(s.keepalive_idle.count());
  // Unacknowledged data gives up when keepalive would have: idle time, then 3 probes 3 s apart.
  constexpr long kProbeSeconds = 3L * 3;
  const std::string user_timeout = std::to_string((s.keepalive_idle.count() + kProbeSeconds) * 1000);
  // Our defaults first; `dbname` is expanded from the caller's conninfo and
  // overrides them; client_encoding last, because names are UTF-8.
  std::vector<const char*> keys{
      "connect_timeout",  "keepalives",       "keepalives_idle", "keepalives_interval", "keepalives_count",
      "tcp_user_timeout", "application_name", "dbname",          "client_encoding",     nullptr};
  std::vector<const char*> values{
      timeout.c_str(),    "1",    idle.c_str(), "3", "3", user_timeout.c_str(), s.application_name.c_str(),
      s.conninfo.c_str(), "UTF8", nullptr};
  PGconn* raw = PQconnectStartParams(keys.data(), values.data(), 1);
  if (!raw) {
    error = "out of memory starting a connection";
    return nullptr;
  }
  std::unique_ptr<Connection> c(new Connection(raw));
  if (PQstatus(raw) == CONNECTION_BAD) {
    error = "cannot connect: " + said(PQerrorMessage(raw));
    return nullptr;
  }
  PostgresPollingStatusType st = PGRES_POLLING_WRITING;
  for (;;) {
    if (st == PGRES_POLLING_OK) break;
    if (st == PGRES_POLLING_FAILED) {
      error = "cannot connect: " + said(PQerrorMessage(raw));
      return nullptr;
    }
    if (st == PGRES_POLLING_ACTIVE) {  // libpq-fe.h marks it unused; means "call again"
      st = PQconnectPoll(raw);
      continue;
    }
    Ready r = wait_socket(PQsocket(raw), st == PGRES_POLLING_READING, st == PGRES_POLLING_WRITING, bound);
    if (r == Ready::timed_out || r == Ready::stopped) {
      error = r == Ready::stopped ? "stopped while connecting" : "no answer: connecting did not finish by the deadline";
      return nullptr;
    }
    if (r == Ready::failed) {
      error = "cannot connect: the socket failed";
      return nullptr;
    }
    st = PQconnectPoll(raw);
  }
  // Notices (e.g. "relation already exists, skipping") are not errors: no stderr.
  PQsetNoticeProcessor(
      raw, [](void*, const char*) {}, nullptr);
  if (PQsetnonblocking(raw, 1) != 0) {
    error = "cannot connect: " + said(PQerrorMessage(raw));
    return nullptr;
  }
  return c;
}

Connection::~Connection() { PQfinish(conn_); }

bool Connection::usable_when_idle() {
  if (broken_ || PQstatus(conn_) != CONNECTION_OK || PQtransactionStatus(conn_) != PQTRANS_IDLE) return false;
  pollfd p{};
  p.fd = PQsocket(conn_);
  p.events = POLLIN;
  // An idle pooled session is never sent anything unasked (it LISTENs to nothing),
  // except the server's goodbye: a FATAL message and EOF after a restart or a
  // pg_terminate_backend. Anything readable means the connection is done with;
  // nothing has been sent on it, so opening another is safe.
  return ::poll(&p, 1, 0) == 0;
}

namespace {

Outcome not_sent(const CallBound& bound) {
  return {Outcome::Kind::no_answer,
          {},
          bound.stopped() ? "stopped before the statement was sent" : "deadline passed before the statement was sent",
          {}};
}

}  // namespace

Outcome Connection::exec_prepared(const char* statement, std::span<const char* const> params, const CallBound& bound) {
  if (bound.passed()) return not_sent(bound);
  int ok = PQsendQueryPrepared(conn_, statement, static_cast<int>(params.size()), params.data(), nullptr, nullptr, 0);
  return finish_call(ok != 0, bound);
}

Outcome Connection::exec_simple(const char* sql, const CallBound& bound) {
  if (bound.passed()) return not_sent(bound);
  return finish_call(PQsendQuery(conn_, sql) != 0, bound);
}

bool Connection::await_notifications(const CallBound& bound, std::vector<std::string>& payloads) {
  auto take = [&] {
    while (PGnotify* n = PQnotifies(conn_)) {
      payloads.emplace_back(n->extra != nullptr ? n->extra : "");
      PQfreemem(n);
    }
  };
  take();
  if (!payloads.empty()) return true;
  const Ready r = wait_socket(PQsocket(conn_), true, false, bound);
  if (r == Ready::timed_out || r == Ready::stopped) return true;
  if (r == Ready::failed || PQconsumeInput(conn_) == 0 || PQstatus(conn_) != CONNECTION_OK) {
    broken_ = true;
    return false;
  }
  // The server's goodbye (a FATAL message, then EOF) arrives as a notice and a
  // closed socket: PQconsumeInput() fails, or the status is no longer OK.
  take();
  return true;
}

Outcome Connection::abandon(Ready why, bool sending) {
  if (!broken_) {
    broken_ = true;
    // The pool closes a broken connection at once. A server that checks its
    // client (server_ends_abandoned) ends the statement on its own when it
    // sees the socket closed; any other gets a cancel request.
    note_abandoned();
    if (!server_ends_abandoned_) cancel_in_background(PQgetCancel(conn_));
  }
  std::string text = why == Ready::stopped ? "stopped: the caller gave up" : "no answer by the deadline";
  if (sending) text += " (still sending)";
  text += server_ends_abandoned_ ? "; connection closed, the server ends the statement"
                                 : "; statement cancelled, connection dropped";
  return {Outcome::Kind::no_answer, {}, std::move(text), {}};
}

bool Connection::flush(const CallBound& bound, Outcome& out) {
  for (;;) {
    int f = PQflush(conn_);
    if (f == 0) return true;
    if (f < 0) {
      broken_ = true;
      out = {Outcome::Kind::no_answer, {}, "connection failed sending: " + said(PQerrorMessage(conn_)), {}};
      return false;
    }
    Ready r = wait_socket(PQsocket(conn_), true, true, bound);
    if (r == Ready::timed_out || r == Ready::stopped) {
      out = abandon(r, /*sending=*/true);
      return false;
    }
    if (r == Ready::failed || PQconsumeInput(conn_) == 0) {
      broken_ = true;
      out = {Outcome::Kind::no_answer, {}, "connection failed: " + said(PQerrorMessage(conn_)), {}};
      return false;
    }
  }
}

Outcome Connection::finish_call(bool sent, const CallBound& bound) {
  if (!sent) {
    broken_ = true;
    return {Outcome::Kind::no_answer, {}, "connection failed: " + said(PQerrorMessage(conn_)), {}};
  }
  Outcome out;
  if (!flush(bound, out)) return out;
  Outcome first_error;
  Rows last;
  bool have_error = false;
  for (;;) {
    while (PQisBusy(conn_)) {
      Ready r = wait_socket(PQsocket(conn_), true, false, bound);
      if (r == Ready::timed_out || r == Ready::stopped) return abandon(r, /*sending=*/false);
      if (r == Ready::failed || PQconsumeInput(conn_) == 0) {
        broken_ = true;
        return {Outcome::Kind::no_answer, {}, "connection lost: " + said(PQerrorMessage(conn_)), {}};
      }
    }
    PGresult* r = PQgetResult(conn_);
    if (!r) break;
    ExecStatusType st = PQresultStatus(r);
    if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) {
      last = Rows(r);
    } else {
      if (!have_error) {
        const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
        first_error = {Outcome::Kind::server_error, {}, said(PQresultErrorMessage(r)), state ? state : ""};
        have_error = true;
      }
      PQclear(r);
    }
  }
  if (PQstatus(conn_) != CONNECTION_OK) {
    broken_ = true;
    std::string why = have_error ? first_error.error : said(PQerrorMessage(conn_));
    return {Outcome::Kind::no_answer, {}, "connection lost: " + why, {}};
  }
  if (have_error) return first_error;
  return {Outcome::Kind::ok, std::move(last), {}, {}};
}

}  // namespace forgemeter::pg
