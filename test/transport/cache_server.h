// A plain-HTTP loopback server for the cache tests: each path a resource the
// test sets (body, validators, extra header fields, status), answered 304
// when the request's If-None-Match or If-Modified-Since matches, and every
// request that reaches it recorded (the wire's ground truth). A body may
// depend on the credential and on any request header (`echo`), as GitHub's
// ETags do. `hold()` keeps answers back until `release()`.
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace fmtest {

struct CachedResource {
  std::string body;
  std::string etag;           // "" = none; "auto": one from the body (after echo)
  std::string last_modified;  // "" = none
  int status = 200;
  std::vector<std::pair<std::string, std::string>> fields;  // extra answer header fields
  std::vector<std::string> echo;                            // request headers whose values are appended to the body
  bool per_credential = false;                              // the body ends with the request's Authorization
  std::vector<std::pair<std::string, std::string>> on_304;  // fields a 304 carries instead (or besides)
};

struct SeenRequest {
  std::string method, path, if_none_match, if_modified_since, authorization;
};

class CacheServer {
 public:
  CacheServer() {
    server_.new_task_queue = [] { return new httplib::ThreadPool(12); };
    server_.set_keep_alive_max_count(1'000'000);
    server_.set_tcp_nodelay(true);
    server_.Get(".*", [this](const httplib::Request& q, httplib::Response& a) { answer(q, a); });
    server_.Post(".*", [this](const httplib::Request& q, httplib::Response& a) { answer(q, a); });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::yield();  // stop() works once it runs
  }
  ~CacheServer() {
    release();
    server_.stop();
    thread_.join();
  }

  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  void set(const std::string& path, CachedResource r) {
    std::lock_guard lock(mu_);
    resources_[path] = std::move(r);
  }
  // What a path no set() named answers (its body followed by the path).
  void set_default(CachedResource r) {
    std::lock_guard lock(mu_);
    default_ = std::move(r);
  }
  std::vector<SeenRequest> seen() const {
    std::lock_guard lock(mu_);
    return seen_;
  }
  std::size_t requests() const {
    std::lock_guard lock(mu_);
    return seen_.size();
  }
  std::size_t not_modified() const {
    std::lock_guard lock(mu_);
    return not_modified_;
  }
  void hold() {
    std::lock_guard lock(mu_);
    held_ = true;
  }
  // Keeps back the answers to `path` only, until release().
  void hold(const std::string& path) {
    std::lock_guard lock(mu_);
    held_path_ = path;
  }
  void release() {
    {
      std::lock_guard lock(mu_);
      held_ = false;
      held_path_.clear();
    }
    cv_.notify_all();
  }

 private:
  void answer(const httplib::Request& q, httplib::Response& a) {
    std::unique_lock lock(mu_);
    seen_.push_back({q.method, q.path, q.get_header_value("If-None-Match"), q.get_header_value("If-Modified-Since"),
                     q.get_header_value("Authorization")});
    cv_.wait(lock, [&] { return !held_ && (held_path_.empty() || q.path != held_path_); });
    auto it = resources_.find(q.path);
    if (it == resources_.end() && !default_) {
      a.status = 404;
      a.set_content("no such resource", "text/plain");
      return;
    }
    CachedResource r = it != resources_.end() ? it->second : *default_;
    if (it == resources_.end()) r.body += q.path;
    if (r.status == 304) {  // a broken server: 304 to anything
      ++not_modified_;
      a.status = 304;
      return;
    }
    std::string body = r.body;
    for (const auto& h : r.echo) body += " " + h + "=" + q.get_header_value(h);
    if (r.per_credential) body += " for " + q.get_header_value("Authorization");
    const std::string etag = r.etag == "auto" ? "\"" + std::to_string(std::hash<std::string>{}(body)) + "\"" : r.etag;
    a.status = r.status;
    for (const auto& [n, v] : r.fields) a.set_header(n, v);
    if (!etag.empty()) a.set_header("ETag", etag);
    if (!r.last_modified.empty()) a.set_header("Last-Modified", r.last_modified);
    a.set_header("X-RateLimit-Remaining", std::to_string(5000 - seen_.size()));
    const bool match = (!etag.empty() && q.get_header_value("If-None-Match") == etag) ||
                       (!r.last_modified.empty() && q.get_header_value("If-Modified-Since") == r.last_modified);
    if (r.status == 200 && match) {
      ++not_modified_;
      a.status = 304;
      for (const auto& [n, v] : r.on_304) {
        a.headers.erase(n);
        a.set_header(n, v);
      }
      return;
    }
    a.set_content(body, "application/json");
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;
  std::string held_path_;
  std::map<std::string, CachedResource> resources_;
  std::optional<CachedResource> default_;
  std::vector<SeenRequest> seen_;
  std::size_t not_modified_ = 0;
};

}  // namespace fmtest
