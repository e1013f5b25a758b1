// A plain-HTTP loopback server for the upload tests: it reads each request
// body as it comes (never holding it) and answers what it got — its length,
// a checksum, and how it was framed — so a test compares those with what
// its source gave. /status/<code> answers that status after reading the
// body; /moved answers 307 to /elsewhere, which counts the requests it gets.
#pragma once

#include <httplib.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>

namespace fmtest {

// FNV-1a, 64 bits, fed piece by piece: the same over any split of the bytes.
struct Checksum {
  std::uint64_t h = 14695981039346656037ull;
  void add(std::string_view bytes) {
    for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  }
};

class UploadServer {
 public:
  UploadServer() {
    auto handler = [this](const httplib::Request& q, httplib::Response& a, const httplib::ContentReader& read) {
      answer(q, a, read);
    };
    server_.Post(".*", handler);
    server_.Put(".*", handler);
    server_.set_tcp_nodelay(true);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::yield();
  }
  ~UploadServer() {
    server_.stop();
    thread_.join();
  }

  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  int requests() const { return requests_; }
  int elsewhere() const { return elsewhere_; }

 private:
  void answer(const httplib::Request& q, httplib::Response& a, const httplib::ContentReader& read) {
    ++requests_;
    if (q.path == "/elsewhere") ++elsewhere_;
    Checksum sum;
    std::uint64_t bytes = 0;
    read([&](const char* data, std::size_t n) {
      sum.add({data, n});
      bytes += n;
      return true;
    });
    a.status = 200;
    if (q.path.starts_with("/status/")) a.status = std::stoi(q.path.substr(8));
    if (q.path == "/moved") {
      a.status = 307;
      a.set_header("Location", url("/elsewhere"));
    }
    const std::string framing = q.get_header_value("Transfer-Encoding") == "chunked" ? "chunked"
                                : q.has_header("Content-Length")                     ? "length"
                                                                                     : "none";
    a.set_content(q.method + " " + std::to_string(bytes) + " " + std::to_string(sum.h) + " " + framing, "text/plain");
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<int> requests_{0}, elsewhere_{0};
};

}  // namespace fmtest
