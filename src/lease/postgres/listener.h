// Internal: the store's listening session — `LISTEN` on the store's channel,
// on a connection of its own outside the pool and a thread of its own; each
// notification (its payload: a lease's name, sent by a release or a change of
// hands, statements.cc) goes to the store's ChangeBoard.
//
// Started by the first start() (a candidate's first change_mark), it
// reconnects by itself when its session is lost (pg_terminate_backend, a
// restart), after 50 ms doubling to 2 s (to 30 s while the server refuses
// LISTEN: a hot standby); each time it (re)connects, and when it loses its
// session, every waiter is woken once (changes may have been missed) and
// polls. Where NOTIFY never arrives (a standby, PgBouncer in
// transaction mode) nothing wakes the candidates: they poll, as without it.
//
// Thread-safety: start() and listening() from any thread; destroyed after the
// calls that use its board have returned.
#pragma once

#include <atomic>
#include <string>
#include <thread>

#include "lease/change_board.h"
#include "lease/postgres/connection.h"

namespace forgemeter::pg {

// The channel of a store's notifications: its table's text, as given (at most
// 63 bytes, PostgreSQL's limit on a channel name: longer, its last 63).
std::string channel_of(std::string_view table);

class Listener {
 public:
  Listener(ConnectSettings settings, const std::string& channel, lease_detail::ChangeBoard& board);
  ~Listener();  // stops the thread and joins it
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  void start();            // idempotent
  bool listening() const;  // its session is LISTENing now

 private:
  void run(const std::stop_token& stop);
  void listen_on(Connection& c, const std::stop_token& stop);

  const ConnectSettings settings_;
  const std::string listen_sql_;
  lease_detail::ChangeBoard& board_;
  std::atomic<bool> started_{false}, listening_{false};
  std::jthread thread_;
};

}  // namespace forgemeter::pg
