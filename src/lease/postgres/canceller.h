// Internal: sends cancel requests off the caller's thread.
//
// libpq 15's PQcancel() connects to the server and waits for it to close the
// connection: it can block. A caller past its deadline must not wait for it, so
// abandoned statements are cancelled by one process-wide background thread
// (started on first use, never stopped). At most kMaxPending requests wait;
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

}  // namespace forgemeter::pg
