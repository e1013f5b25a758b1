// Internal: POSTs to etcd's JSON gateway through libcurl, over the members in
// turn.
//
// A call goes to the member that answered last; a connection error, an
// attempt that outlasts `attempt_timeout`, or a member that answers
// "unavailable" (no leader, leader changed, request timed out) moves it on to
// the next member, round after round (up to 50 ms apart) until one answers or the
// call's bound passes. An expired auth token is fetched again once per call. Each
// connection is an easy handle in a multi handle of its own, so that its
// keep-alive connection outlives the call and a stop (the bound's eventfd,
// polled beside the transfer) ends the transfer at once; an abandoned
// transfer closes its connection.
//
// Thread-safety: post() may be called from many threads at once.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/mutex.h"
#include "forgemeter/etcd_store.h"
#include "lease/call_bound.h"

namespace forgemeter::etcd {

struct Reply {
  bool ok = false;    // etcd answered 200 with `body`
  std::string body;   // the answer
  std::string error;  // when not ok: what kept an answer from arriving, for a log line
};

// What every transfer to a member sets on its easy handle: the protocols,
// no proxy, no signals, TCP keepalive, the TLS files.
void set_transport(void* easy, const EtcdStoreOptions& options);

class Gateway {
 public:
  explicit Gateway(const EtcdStoreOptions& options);
  ~Gateway();
  Gateway(const Gateway&) = delete;
  Gateway& operator=(const Gateway&) = delete;

  // `path`: "/v3/kv/range", …
  Reply post(std::string_view path, const std::string& body, const lease_detail::CallBound& bound);
  // The auth token a request sends (body; "" without auth), for a transfer
  // of one's own (the watch).
  Reply token(const lease_detail::CallBound& bound);

 private:
  struct Connection;
  struct Attempt;
  std::unique_ptr<Connection> checkout(const lease_detail::CallBound& bound);
  void checkin(std::unique_ptr<Connection> c);
  Attempt attempt(Connection& c, std::size_t member, std::string_view path, const std::string& body,
                  const std::string& token, const lease_detail::CallBound& bound);
  // The token to send (answered: body = token; "" without auth), fetched when
  // there is none or `stale` was refused.
  Attempt token_for(Connection& c, std::size_t member, const std::string& stale, const lease_detail::CallBound& bound);
  // attempt() with a token, and once more with a fresh one when etcd says it expired.
  Attempt authenticated(Connection& c, std::size_t member, std::string_view path, const std::string& body,
                        const lease_detail::CallBound& bound);

  const EtcdStoreOptions options_;
  std::atomic<std::size_t> preferred_{0};  // the member that answered last
  core_detail::Mutex mu_;
  std::condition_variable freed_;
  std::vector<std::unique_ptr<Connection>> idle_ GUARDED_BY(mu_);
  std::size_t open_ GUARDED_BY(mu_) = 0;
  std::string token_ GUARDED_BY(mu_);
};

}  // namespace forgemeter::etcd
