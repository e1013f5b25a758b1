// forgemeter/etcd_store.h — the lease store shared by replicas, on an etcd v3 cluster.
//
//   auto options = forgemeter::EtcdStoreOptions::from_uri("etcd://10.0.0.1:2379,10.0.0.2:2379/forgemeter/leases");
//   forgemeter::EtcdStore store(options);
//   forgemeter::campaign(store, spec, stop, work);   // forgemeter/campaign.h
//
// Keeps the contract of forgemeter/lease.h (the conformance suite checks it)
// over etcd's JSON gateway (/v3/kv/range, /v3/kv/txn; etcd 3.4 and later)
// through libcurl: a lease is one key, <prefix><name>, whose value holds the
// holder, the expiry (the caller's clock, milliseconds) and the fencing term;
// every change is one transaction that compares the key's mod_revision with
// the one read, so no two writers both win. Reads are linearizable. Calls go
// to the endpoint that answered last and fail over to the next on a
// connection error or a stalled member, each attempt bounded by
// `attempt_timeout` and the call's Deadline; a stop ends a call at once.
// Wake-ups (LeaseChanges): a candidate's first change_mark() opens one watch
// on the prefix (/v3/watch), which reopens by itself.
// Design (record, failover, terms, auth, watch): docs/etcd-store.md.
//
// Thread-safety: every method may be called from many threads at once.
// Ownership: the store owns its connections (kept alive, never shared with the
// metered Transport) and closes them when destroyed; do not destroy it while
// calls are in flight.
// Errors: outcomes are LeaseResult values: `invalid` for arguments that break
// the contract, `no_answer` for whatever kept an answer from arriving (no
// member reachable, no quorum, deadline, stop, refused credentials), the
// reason in `error` (never a password or token; a refusal retrying cannot
// cure — wrong password, no permission — says "permanent"). The constructor and
// from_uri() throw std::invalid_argument for unusable options; neither connects.
#pragma once

#include "forgemeter/export.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "forgemeter/lease.h"

namespace forgemeter {

struct FORGEMETER_API EtcdStoreOptions {
  // Client URLs of the members, tried in order: "http://127.0.0.1:2379",
  // "https://etcd-1.internal:2379". At least one.
  std::vector<std::string> endpoints{};
  // Every lease key starts with it ("/forgemeter/leases/" + name).
  std::string prefix = "/forgemeter/leases/";
  // TLS (https endpoints): the CA that signed the members' certificates
  // (empty: the system's), and a client certificate and key for etcd's
  // --client-cert-auth (both or neither), PEM files.
  std::string ca_file{};
  std::string cert_file{};
  std::string key_file{};
  // etcd's user authentication (empty user: none); the token is fetched on
  // the first call and again whenever etcd says it expired.
  std::string user{};
  std::string password{};
  // At most this long per attempt on one member before trying the next.
  std::chrono::milliseconds attempt_timeout{1000};
  // Most connections kept open at once (one per call in flight).
  std::size_t max_connections = 4;

  // etcd://HOST:PORT[,HOST:PORT...][/PREFIX][?cacert=F&cert=F&key=F] (etcds://
  // for TLS); user and password as etcd://USER:PASSWORD@HOST:PORT/...; the
  // prefix ends with '/' (added when missing). Throws std::invalid_argument
  // with the reason (and without the password) for anything else.
  static EtcdStoreOptions from_uri(std::string_view uri);
  // The URI again, password replaced by "***": for logs and status output.
  std::string redacted() const;
};

class FORGEMETER_API EtcdStore final : public LeaseStore, public LeaseChanges {
 public:
  explicit EtcdStore(EtcdStoreOptions options);
  ~EtcdStore() override;
  EtcdStore(const EtcdStore&) = delete;
  EtcdStore& operator=(const EtcdStore&) = delete;

  LeaseResult acquire(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                      const Deadline& deadline) override;
  LeaseResult renew(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                    const Deadline& deadline) override;
  LeaseResult release(std::string_view name, std::string_view owner, const Deadline& deadline) override;
  LeaseState inspect(std::string_view name, const Deadline& deadline) override;
  LeaseResult resign(std::string_view name, const Deadline& deadline) override;
  std::uint64_t change_mark(std::string_view name) override;
  bool wait_for_change(std::string_view name, std::uint64_t mark, const Deadline& deadline) override;
  // The watch is open now (false before the first change_mark()).
  bool watching() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace forgemeter
