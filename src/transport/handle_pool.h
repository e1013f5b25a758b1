// handle_pool.h — libcurl easy handles reused across requests, and the share
// that lets them reuse each other's DNS answers and TLS sessions.
//
// Each pooled handle keeps its own connection cache (libcurl does not support
// sharing connections between concurrent threads), so a handle taken from the
// pool brings its live keep-alive connections with it. The pool hands out the
// most recently returned handle first, whose connections are the warmest.
// reset() renews a taken handle (curl_easy_reset: options and per-handle state
// such as libcurl's dead-connection retry counter, but not its connections or
// the share). Each pooled handle carries a HandleState: what the Transport
// last did with it, so it can skip the reset when nothing calls for one.
//
// Thread-safety: take() and the Handle destructor may run on any thread.
#pragma once

#include <curl/curl.h>

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/mutex.h"
#include "transport/easy_options.h"
#include "transport/hop_counter.h"

namespace forgemeter::transport_detail {

// What a Transport last did with a pooled handle.
struct HandleState {
  bool fresh = true;  // never used (its first request loads the resolve entries)
  // The last perform returned CURLE_OK after putting exactly one request on
  // the wire: libcurl resent nothing, so its per-handle resend counter is
  // still 0 and the options set for it are all still in place.
  bool reusable = false;
  bool with_body = false;  // the last hop's shape: method, whether a body was set, and fed
  bool fed = false;
  std::string method;
  std::string checked_url;     // the last request URL that passed the checks...
  std::string checked_origin;  // ...and its origin_key()
  ParsedHost hop;              // the last hop's URL, host and API
  // What is set on the handle since its last reset, so a reused handle is
  // not told again: the counting callbacks (through `slot`), the URL, the
  // header list and the timeouts last set.
  bool callbacks_set = false;
  CounterSlot slot;
  std::string url_set;
  curl_slist* headers_set = nullptr;
  std::chrono::milliseconds connect_timeout_set{-1}, timeout_set{-1};
  bool progress_on = false;  // the progress callback watches a Request::stop
  // Where the handle writes (CURLOPT_WRITEDATA, CURLOPT_ERRORBUFFER; both set
  // once per reset): the body being received (tap.body moved to the Response
  // at the end, unless it streams to a Request::on_body).
  BodyTap tap;
  BodyFeed feed;  // CURLOPT_READDATA: a Request::body_source's pieces
  char error[CURL_ERROR_SIZE] = {};
  // The last hop header list built on this handle and what it was built from
  // (the Transport's lane header name is the same for all its handles).
  Slist headers;
  std::vector<std::pair<std::string, std::string>> headers_from;
  std::string bearer_from;
  Lane lane_from = Lane::other();
  bool same_origin_from = false;
  bool with_body_from = false;
};

// curl_global_init, once per process (thread-safe).
void ensure_curl_global();

class HandlePool {
  // One heap object per handle: taking and giving back moves a pointer.
  struct Pooled {
    Pooled() = default;
    Pooled(const Pooled&) = delete;
    Pooled& operator=(const Pooled&) = delete;
    ~Pooled() {
      if (h) curl_easy_cleanup(h);
    }  // before `state`: libcurl may still write to its buffers
    CURL* h = nullptr;
    HandleState state;
  };

 public:
  HandlePool();  // throws std::runtime_error when libcurl cannot start
  ~HandlePool();
  HandlePool(const HandlePool&) = delete;
  HandlePool& operator=(const HandlePool&) = delete;

  class Handle {
   public:
    Handle(HandlePool* pool, std::unique_ptr<Pooled> p) noexcept : pool_(pool), p_(std::move(p)) {}
    Handle(Handle&& o) noexcept = default;
    Handle& operator=(Handle&&) = delete;
    ~Handle() {
      if (p_) pool_->give_back(std::move(p_));
    }
    CURL* get() const noexcept { return p_->h; }
    HandleState& state() noexcept { return p_->state; }
    // Renews the handle for its next request (see above).
    void reset() noexcept { curl_easy_reset(p_->h); }

   private:
    HandlePool* pool_;
    std::unique_ptr<Pooled> p_;
  };

  Handle take();

 private:
  void give_back(std::unique_ptr<Pooled> p) noexcept;

  CURLSH* share_ = nullptr;
  // Taken and let go by libcurl (lock_share, unlock_share), out of the
  // analysis' sight: plain std::mutex.
  std::array<std::mutex, CURL_LOCK_DATA_LAST> share_locks_;
  // The most recently returned handle, taken and given back without a lock
  // (a thread sending request after request never waits); the others, in
  // the order they were returned, under mu_.
  std::atomic<Pooled*> hot_{nullptr};
  core_detail::Mutex mu_;
  std::vector<std::unique_ptr<Pooled>> idle_ GUARDED_BY(mu_);
};

}  // namespace forgemeter::transport_detail
