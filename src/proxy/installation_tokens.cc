#include "proxy/installation_tokens.h"

#include <time.h>

#include <nlohmann/json.hpp>

#include "proxy/credential_keys.h"

namespace forgemeter::proxy {
namespace {

// A body larger than this is no access_tokens answer worth parsing.
constexpr std::size_t kMaxTokenAnswer = std::size_t{64} * 1024;

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

int number(std::string_view s) {
  int n = 0;
  for (char c : s) n = n * 10 + (c - '0');
  return n;
}

}  // namespace

std::optional<std::string> why_bad_installation(std::string_view text) {
  if (!all_digits(text)) return "an installation is decimal digits";
  if (text.size() > 19) return "an installation has 19 digits at most";
  if (text.front() == '0') return "an installation does not start with 0";
  std::uint64_t n = 0;
  for (char c : text) n = n * 10 + static_cast<std::uint64_t>(c - '0');
  if (n >= kCredentialIdBase) return "an installation is below 2^62";
  return std::nullopt;
}

std::optional<std::uint64_t> parse_installation(std::string_view text) {
  if (why_bad_installation(text)) return std::nullopt;
  std::uint64_t n = 0;
  for (char c : text) n = n * 10 + static_cast<std::uint64_t>(c - '0');
  return n;
}

std::optional<std::uint64_t> access_tokens_installation(std::string_view path) {
  constexpr std::string_view kHead = "/app/installations/", kTail = "/access_tokens";
  if (!path.starts_with(kHead) || !path.ends_with(kTail) || path.size() <= kHead.size() + kTail.size())
    return std::nullopt;
  return parse_installation(path.substr(kHead.size(), path.size() - kHead.size() - kTail.size()));
}

std::optional<UtcMillis> parse_utc(std::string_view t) {
  // YYYY-MM-DDTHH:MM:SSZ
  if (t.size() != 20 || t[4] != '-' || t[7] != '-' || t[10] != 'T' || t[13] != ':' || t[16] != ':' || t[19] != 'Z')
    return std::nullopt;
  for (std::size_t i : {0, 5, 8, 11, 14, 17})
    if (!all_digits(t.substr(i, i == 0 ? 4 : 2))) return std::nullopt;
  struct tm tm {};
  tm.tm_year = number(t.substr(0, 4)) - 1900;
  tm.tm_mon = number(t.substr(5, 2)) - 1;
  tm.tm_mday = number(t.substr(8, 2));
  tm.tm_hour = number(t.substr(11, 2));
  tm.tm_min = number(t.substr(14, 2));
  tm.tm_sec = number(t.substr(17, 2));
  if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
    return std::nullopt;
  return UtcMillis(std::chrono::seconds(timegm(&tm)));
}

std::optional<TokenAnswer> token_answer(std::string_view body) {
  if (body.size() > kMaxTokenAnswer) return std::nullopt;
  const auto json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return std::nullopt;
  const auto t = json.find("token");
  const auto e = json.find("expires_at");
  if (t == json.end() || e == json.end() || !t->is_string() || !e->is_string()) return std::nullopt;
  const auto expires = parse_utc(e->get_ref<const std::string&>());
  if (!expires || t->get_ref<const std::string&>().empty()) return std::nullopt;
  return TokenAnswer{t->get<std::string>(), *expires};
}

InstallationTokens::InstallationTokens(InstallationTokenOptions options)
    : max_(options.max_tokens), clock_(options.clock != nullptr ? *options.clock : system_clock()) {}

void InstallationTokens::drop_expired(UtcMillis now) {
  std::erase_if(by_token_, [now](const auto& e) { return e.second.expires <= now; });
}

void InstallationTokens::learn(std::string_view token, std::uint64_t installation, UtcMillis expires_at) {
  const std::uint64_t key = hash_.mac64(token);
  const UtcMillis now = clock_.now();
  if (expires_at <= now || max_ == 0) return;
  core_detail::MutexLock lock(mu_);
  if (!by_token_.contains(key) && by_token_.size() >= max_) {
    drop_expired(now);
    if (by_token_.size() >= max_) {
      auto soonest = by_token_.begin();
      for (auto i = by_token_.begin(); i != by_token_.end(); ++i)
        if (i->second.expires < soonest->second.expires) soonest = i;
      by_token_.erase(soonest);
    }
  }
  by_token_[key] = Entry{installation, expires_at};
}

void InstallationTokens::forget(std::string_view token) {
  const std::uint64_t key = hash_.mac64(token);
  core_detail::MutexLock lock(mu_);
  by_token_.erase(key);
}

std::optional<std::uint64_t> InstallationTokens::installation_of(std::string_view token) const {
  const std::uint64_t key = hash_.mac64(token);
  const UtcMillis now = clock_.now();
  core_detail::MutexLock lock(mu_);
  const auto it = by_token_.find(key);
  if (it == by_token_.end() || it->second.expires <= now) return std::nullopt;
  return it->second.installation;
}

std::size_t InstallationTokens::size() const {
  core_detail::MutexLock lock(mu_);
  return by_token_.size();
}

bool InstallationTokens::observe(std::string_view method, std::string_view path, int status, std::string_view body,
                                 std::optional<std::string_view> token) {
  if (method == "DELETE" && path == "/installation/token" && status == 204 && token) {
    forget(*token);
    return true;
  }
  if (method != "POST" || status != 201) return false;
  const auto installation = access_tokens_installation(path);
  if (!installation) return false;
  auto answer = token_answer(body);
  if (!answer) return false;
  learn(answer->token, *installation, answer->expires_at);
  return true;
}

}  // namespace forgemeter::proxy
