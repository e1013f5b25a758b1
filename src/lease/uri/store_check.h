// store_check.h — a store that can never work, told from one that is down
// for now, before `lease run` campaigns or `lease status` asks.
//
// One connection attempt with libpq (errors in verbose form, which carries
// the server's SQLSTATE), bounded by `bound`. Permanent, so retrying is
// pointless and the command exits 1 at once with the store's message:
//   * a conninfo or URI libpq cannot parse (malformed, unknown option),
//     or an option value it rejects (`invalid port number`, …);
//   * the server refused us: 28P01 (password authentication failed), 28000
//     (role does not exist, no pg_hba.conf entry), 3D000 (database does
//     not exist), 42501 (no CONNECT privilege);
//   * the server wants a password and none was given (`no password supplied`);
//   * connected, the role finds neither the store's tables nor the right to
//     create them in its schema (PostgreSQL 15 grants no CREATE on public).
// Anything else — connection refused, a timeout, the server starting up or
// shutting down (57P03), too many connections, a name that does not resolve
// — may pass: the campaign keeps retrying it. So does a store that connects.
// An etcd:// URI: one inspect; permanent when EtcdStore says so (a URI it
// cannot read, a wrong password, no permission).
#pragma once

#include <chrono>
#include <string>

namespace forgemeter::lease_uri {

// Empty when `store` may work (memory:, connected, or a transient failure);
// else why it never will: one line, passwords scrubbed.
std::string store_misconfiguration(const std::string& store, std::chrono::milliseconds bound);

// store_misconfiguration() as the commands act on it: throws StoreError(refused) with
// its text and where the store is configured; returns when it may work.
// `would_retry`: the command would otherwise keep retrying (lease run), so
// the message says that retrying cannot help.
void require_workable_store(const std::string& store, std::chrono::milliseconds bound, bool would_retry);

}  // namespace forgemeter::lease_uri
