// masked_target, json_line and AccessLogFile (access_log.h).
#include "serve/access_log.h"

#include <array>
#include <stdexcept>

#include <date/date.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/ascii.h"

namespace forgemeter::serve {
namespace {

// Query parameters that carry a credential in the APIs forgemeter fronts
// (GitHub's and GitLab's tokens, OAuth's code and secret, signed URLs).
bool names_a_secret(std::string_view name) {
  static constexpr std::array<std::string_view, 12> kSecrets = {
      "token",  "access_token", "private_token", "job_token", "client_secret", "password",
      "secret", "sig",          "signature",     "code",      "key",           "api_key"};
  for (std::string_view s : kSecrets)
    if (core_detail::iequals(name, s)) return true;
  return false;
}

}  // namespace

std::string masked_target(std::string_view path, std::string_view query) {
  std::string out(path);
  if (query.empty()) return out;
  out += '?';
  std::size_t at = 0;
  while (at <= query.size()) {
    const std::size_t amp = std::min(query.find('&', at), query.size());
    const std::string_view pair = query.substr(at, amp - at);
    const std::size_t eq = pair.find('=');
    if (eq != std::string_view::npos && names_a_secret(pair.substr(0, eq)))
      out.append(pair.substr(0, eq + 1)).append("***");
    else
      out.append(pair);
    if (amp < query.size()) out += '&';
    at = amp + 1;
  }
  return out;
}

std::string json_line(const AccessRecord& record) {
  nlohmann::ordered_json j;
  j["time"] = date::format("%FT%TZ", record.at);
  j["method"] = record.method;
  j["target"] = record.target;
  j["status"] = record.status;
  j["bytes"] = record.bytes;
  j["duration_ms"] = static_cast<double>(record.duration.count()) / 1000.0;
  j["peer"] = record.peer;
  for (const auto& [name, value] : record.fields) j[name] = value;
  // Invalid UTF-8 from a client becomes U+FFFD, never a broken line.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
}

AccessLogFile::AccessLogFile(const std::string& path) {
  if (path == "-") {
    file_ = stderr;
    return;
  }
  file_ = std::fopen(path.c_str(), "ae");
  if (file_ == nullptr) throw std::runtime_error(fmt::format("--access-log {}: cannot open it for appending", path));
  owned_ = true;
}

AccessLogFile::~AccessLogFile() {
  core_detail::MutexLock lock(mu_);
  if (owned_) std::fclose(file_);
}

void AccessLogFile::write(const AccessRecord& record) {
  const std::string line = json_line(record);
  core_detail::MutexLock lock(mu_);
  // One fwrite of a whole line, flushed: a reader tailing the file never
  // sees half a record, and a crash loses at most the line being written.
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
    failed_.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace forgemeter::serve
