// raw_peer.h — a loopback HTTP peer that answers every request with the same
// bytes and keeps what each request sent, byte for byte: to compare what
// `forgemeter fetch` and curl put on the wire, and to send answers no HTTP
// server library would (HTTP/0.9, a 10 MB header field, a field twice).
//
// Not a forge: it counts nothing and knows no route. One connection at a
// time on 127.0.0.1; each is answered once and closed. Thread-safe.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/silent_listener.h"

namespace fmtest {

// A request as received: its head (request line and fields) and its body.
struct RawRequest {
  std::string head, body;
  // The values of the field `name` (any case), in the order sent.
  std::vector<std::string> fields(const std::string& name) const;
  std::string line() const { return head.substr(0, head.find("\r\n")); }  // "POST / HTTP/1.1"
};

class RawPeer {
 public:
  explicit RawPeer(std::string answer);  // throws std::runtime_error when it cannot listen
  ~RawPeer();
  RawPeer(const RawPeer&) = delete;
  RawPeer& operator=(const RawPeer&) = delete;

  std::string url(const std::string& path = "/") const;
  std::vector<RawRequest> requests() const;

 private:
  void run();
  void serve(int conn);

  std::string answer_;
  SilentListener listener_;
  mutable std::mutex mu_;
  std::vector<RawRequest> requests_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace fmtest
