// handle_pool.h — libcurl easy handles reused across requests, and the share
// that lets them reuse each other's DNS answers and TLS sessions.
//
// Each pooled handle keeps its own connection cache (libcurl does not support
// sharing connections between concurrent threads), so a handle taken from the
// pool brings its live keep-alive connections with it. The pool hands out the
// most recently returned handle first, whose connections are the warmest.
// take() resets the handle (curl_easy_reset: options and per-handle state such
// as libcurl's dead-connection retry counter, but not its connections) and
// re-attaches the share.
//
// Thread-safety: take() and the Handle destructor may run on any thread.
#pragma once

#include <curl/curl.h>

#include <array>
#include <memory>
#include <mutex>
#include <vector>

namespace forgemeter::transport_detail {

// curl_global_init, once per process (thread-safe).
void ensure_curl_global();

class HandlePool {
 public:
  HandlePool();  // throws std::runtime_error when libcurl cannot start
  ~HandlePool();
  HandlePool(const HandlePool&) = delete;
  HandlePool& operator=(const HandlePool&) = delete;

  class Handle {
   public:
    Handle(HandlePool* pool, CURL* h, bool fresh) : pool_(pool), h_(h), fresh_(fresh) {}
    Handle(Handle&& o) noexcept : pool_(o.pool_), h_(o.h_), fresh_(o.fresh_) { o.h_ = nullptr; }
    Handle& operator=(Handle&&) = delete;
    ~Handle() { if (h_) pool_->give_back(h_, fresh_); }
    CURL* get() const noexcept { return h_; }
    // True for a handle never used before (its first request loads the
    // transport's --resolve entries into the shared DNS cache).
    bool fresh() const noexcept { return fresh_; }
    // Its first request is on its way (the resolve entries are loaded).
    void used() noexcept { fresh_ = false; }

   private:
    HandlePool* pool_;
    CURL* h_;
    bool fresh_;
  };

  Handle take();
  // Resets a handle that is already taken, for its next request.
  void reset(CURL* h);

 private:
  void give_back(CURL* h, bool fresh) noexcept;

  CURLSH* share_ = nullptr;
  std::array<std::mutex, CURL_LOCK_DATA_LAST> share_locks_;
  std::mutex mu_;
  std::vector<std::pair<CURL*, bool>> idle_;  // handle, never used
};

}  // namespace forgemeter::transport_detail
