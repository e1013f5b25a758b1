#include "lease/uri/secrets.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include "lease/uri/passwords.h"

namespace forgemeter::lease_uri {

namespace {

std::mutex secrets_mu;
std::vector<std::string>& secrets() {
  static std::vector<std::string> s;
  return s;
}

}  // namespace

void remember_secrets(std::string_view text) {
  auto found = store_passwords(text);
  if (found.empty()) return;
  std::lock_guard lock(secrets_mu);
  auto& all = secrets();
  for (auto& f : found)
    if (std::find(all.begin(), all.end(), f) == all.end()) all.push_back(std::move(f));
  std::sort(all.begin(), all.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

void forget_secrets() {
  std::lock_guard lock(secrets_mu);
  secrets().clear();
}

std::string scrub(std::string_view text) {
  std::string out(text);
  std::lock_guard lock(secrets_mu);
  for (const auto& secret : secrets()) {
    for (std::size_t at = out.find(secret); at != std::string::npos; at = out.find(secret, at + 3))
      out.replace(at, secret.size(), "***");
  }
  return out;
}

}  // namespace forgemeter::lease_uri
