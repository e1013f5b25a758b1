// holds.h — requests the loopback forge keeps waiting until a test lets them go.
//
// `/hold/<key>` blocks its server thread until the test calls release(key):
// a test can then have exactly n requests of an installation being handled at
// once (secondary limits on concurrency) and know it, by awaiting them,
// instead of guessing with sleeps. A released key stays open: requests for it
// arriving later pass at once. release_all() opens every key, present and
// future, so stopping the forge never waits on a held request.
//
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <mutex>
#include <set>
#include <string>

namespace forgemeter::testforge {

class Holds {
 public:
  // Blocks until `key` is released (true) or `limit` real time passed (false).
  bool hold(const std::string& key, std::chrono::milliseconds limit);
  void release(const std::string& key);
  void release_all();
  // Blocks until `n` requests are held on `key` at once (true) or `timeout`
  // real time passed (false).
  bool await_held(const std::string& key, std::size_t n, std::chrono::milliseconds timeout) const;
  std::size_t held(const std::string& key) const;

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  std::map<std::string, std::size_t> held_;
  std::set<std::string> released_;
  bool all_released_ = false;
};

}  // namespace forgemeter::testforge
