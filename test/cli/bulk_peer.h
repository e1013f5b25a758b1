// bulk_peer.h — an upstream for the proxy's streaming tests, on 127.0.0.1:
// `GET /download/N` answers N bytes of a pattern anyone can recompute
// (bulk_byte), never held whole; `POST /upload` (with Content-Length) reads
// the body as it comes and answers its length and digest. One thread per
// connection, one request each. It counts the downloads whose reader went
// away before the end, and the bytes they had sent. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "support/silent_listener.h"

namespace fmtest {

inline char bulk_byte(std::uint64_t at) { return static_cast<char>('A' + (at * 31 + at / 7919) % 61); }

// FNV-1a over bytes, continued from `hash`.
std::uint64_t bulk_digest(const char* bytes, std::size_t n, std::uint64_t hash = 14695981039346656037ULL);

class BulkPeer {
 public:
  BulkPeer();
  ~BulkPeer();
  BulkPeer(const BulkPeer&) = delete;
  BulkPeer& operator=(const BulkPeer&) = delete;
  std::string url() const;  // "http://127.0.0.1:PORT"
  int downloads_cut() const { return cut_; }
  std::uint64_t bytes_sent_before_cut() const { return cut_bytes_; }

 private:
  void serve(int conn);
  SilentListener listener_;
  std::atomic<bool> stop_{false};
  std::atomic<int> cut_{0};
  std::atomic<std::uint64_t> cut_bytes_{0};
  std::thread accepter_;
  std::vector<std::thread> workers_;
};

}  // namespace fmtest
