// access_log.h — one record per request a server answered, and the JSON
// line it is written as (`--access-log FILE`).
//
// The record never holds a header's value: no Authorization, Cookie or
// token reaches a log. The path keeps its query, but the value of every
// parameter whose name says it carries a secret (token, access_token,
// private_token, client_secret, password, sig, signature, code, key, ...)
// is masked. The owner adds fields of its own (lane, cache status).
// Thread-safety: AccessLogFile::write may be called from any thread.
// Errors: a failed write is counted, never thrown.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "core/thread_annotations.h"

namespace forgemeter::serve {

struct AccessRecord {
  std::chrono::sys_time<std::chrono::milliseconds> at;  // when the request's target arrived
  std::string method;
  std::string target;  // path?query, secrets in the query masked
  int status = 0;      // 0: the client went away before an answer
  std::uint64_t bytes = 0;
  std::chrono::microseconds duration{};
  std::string peer;
  std::vector<std::pair<std::string, std::string>> fields;
};

// `path` and `query` as one target, each secret parameter's value "***".
std::string masked_target(std::string_view path, std::string_view query);

// One line of JSON, newline-terminated; any byte of the record escaped.
std::string json_line(const AccessRecord& record);

class AccessLogFile {
 public:
  // Appends to `path` ("-": stderr). Throws std::runtime_error naming the
  // file when it cannot be opened.
  explicit AccessLogFile(const std::string& path);
  ~AccessLogFile();
  AccessLogFile(const AccessLogFile&) = delete;
  AccessLogFile& operator=(const AccessLogFile&) = delete;

  void write(const AccessRecord& record);
  std::uint64_t failed_writes() const noexcept { return failed_.load(std::memory_order_relaxed); }

 private:
  core_detail::Mutex mu_;
  std::FILE* file_ GUARDED_BY(mu_) = nullptr;
  bool owned_ = false;
  std::atomic<std::uint64_t> failed_{0};
};

}  // namespace forgemeter::serve
