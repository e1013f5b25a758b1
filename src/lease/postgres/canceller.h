// Internal: sends cancel requests off the caller's thread, for servers that
// do not end an abandoned statement themselves (before PostgreSQL 14, or
// where client_connection_check_interval cannot be set; connection.h).
//
// libpq 15's PQcancel() connects to the server and waits for it to close the
// connection, with no timeout: a frozen server (SIGSTOP) holds it. A caller
// past its deadline must not wait for it, so abandoned statements are
// cancelled by one process-wide background thread (started on first use,
// never stopped); on a frozen server of that kind, that thread waits until the
// server thaws or its connection dies. At most kMaxPending requests wait;
// beyond that the oldest is dropped (its connection is closed anyway, which
// ends the backend once it next talks to the client).
#pragma once

#include <libpq-fe.h>

#include <cstddef>

namespace forgemeter::pg {

inline constexpr std::size_t kMaxPending = 64;

// Takes ownership of `cancel` (from PQgetCancel; nullptr is ignored).
void cancel_in_background(PGcancel* cancel);

// Cancel requests sent so far (for tests and diagnostics).
std::size_t cancels_sent();

// Statements abandoned so far, whichever way the server ends them.
void note_abandoned();
std::size_t statements_abandoned();

}  // namespace forgemeter::pg
