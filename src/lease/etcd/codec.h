// Internal: the etcd store's bytes — the lease record as a key's value, the
// JSON gateway's requests and the parts of its answers the store reads.
//
// A record is stored as JSON, readable with `etcdctl get`:
//   {"holder":"web-3","expiry_ms":1790000000000,"term":7}   (holder "" and expiry_ms 0: free)
// plus "resign_term":7 once an operator asked term 7's holder to step down.
// Keys and values travel base64-encoded, 64-bit numbers as JSON strings (the
// gateway's protobuf mapping); absent fields are zero.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lease/transition.h"

namespace forgemeter::etcd {

std::string base64(std::string_view bytes);
std::optional<std::string> unbase64(std::string_view text);

std::string record_value(const lease_detail::LeaseRecord& r);
// Empty when the value is not a lease record this store wrote.
std::optional<lease_detail::LeaseRecord> parse_record(std::string_view value);

// A key as read: absent (mod_revision 0, a free record with term 0) or present.
struct Kv {
  std::int64_t mod_revision = 0;
  lease_detail::LeaseRecord record;
};

// POST /v3/kv/range: the key, linearizable.
std::string range_request(std::string_view key);
// POST /v3/kv/txn: if the key's mod_revision is still `seen` (0: absent), put
// `next`; else read the key.
std::string txn_request(std::string_view key, std::int64_t seen, const lease_detail::LeaseRecord& next);
// POST /v3/auth/authenticate.
std::string authenticate_request(std::string_view user, std::string_view password);

// The answers; each leaves `error` saying what was wrong and returns empty
// when the body is not what etcd sends.
std::optional<Kv> parse_range(std::string_view body, std::string& error);
struct TxnAnswer {
  bool succeeded = false;
  Kv kv;  // succeeded: the record written at the transaction's revision; else the key as it is
};
std::optional<TxnAnswer> parse_txn(std::string_view body, const lease_detail::LeaseRecord& written, std::string& error);
std::optional<std::string> parse_token(std::string_view body, std::string& error);

// The watch on the store's key prefix: its messages stream one JSON object a
// line ({"result":{"header":…,"created":…,"events":[…]}}). Only a release, a
// change of hands or a resign request is a change a waiter waits for: a
// renewal rewrites the key with the same holder and term and is skipped
// (events carry prev_kv).
// POST /v3/watch: every key under `prefix`, from `start_revision` (0: now).
std::string watch_request(std::string_view prefix, std::int64_t start_revision);

struct WatchMessage {
  bool created = false;           // the watch is open
  bool canceled = false;          // etcd ended it (compaction, a member's shutdown): open another
  std::int64_t revision = 0;      // header.revision: the watch has delivered everything up to it
  std::int64_t compacted = 0;     // canceled for compaction: the oldest revision still kept
  std::vector<std::string> keys;  // keys released or changing hands, in order
};

// One streamed line; empty (and `error` set) when it is not a watch message.
std::optional<WatchMessage> parse_watch(std::string_view line, std::string& error);

// An error answer ({"error":…,"code":N,"message":…}): the gRPC code and message.
struct GatewayError {
  int code = 0;  // gRPC status code (14 unavailable, 16 unauthenticated, …)
  std::string message;
};
GatewayError parse_error(std::string_view body);

}  // namespace forgemeter::etcd
