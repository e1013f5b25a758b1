#include "lease/uri/secrets.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/mutex.h"
#include "lease/uri/passwords.h"

namespace forgemeter::lease_uri {

namespace {

constexpr std::string_view kMask = "***";

bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// A byte of a word: an ASCII letter or digit, or any byte of a UTF-8 sequence.
bool word_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u >= 0x80;
}

// Rule 1, conninfo and URI query: the value after `password=`. The keyword
// counts where libpq would read it: at the start, after a space or a quote
// (a conninfo, or one quoted in a message), after `?` or `&` (a URI's query).
void mask_password_values(std::string& s) {
  constexpr std::string_view kKey = "password";
  for (std::size_t at = s.find(kKey); at != std::string::npos; at = s.find(kKey, at + 1)) {
    const char before = at == 0 ? ' ' : s[at - 1];
    const bool query = before == '?' || before == '&';
    if (!query && !space(before) && before != '"' && before != '\'') continue;
    std::size_t i = at + kKey.size();
    while (!query && i < s.size() && space(s[i])) ++i;
    if (i >= s.size() || s[i] != '=') continue;
    ++i;
    while (!query && i < s.size() && space(s[i])) ++i;  // libpq: `password= x` is x
    std::size_t v0 = i;
    if (!query && i < s.size() && s[i] == '\'') {
      v0 = ++i;
      while (i < s.size() && s[i] != '\'') i += s[i] == '\\' && i + 1 < s.size() ? 2 : 1;
    } else {
      while (i < s.size() && !space(s[i]) && !(query && (s[i] == '&' || s[i] == '#'))) ++i;
    }
    if (i > v0) s.replace(v0, i - v0, kMask);
    at = v0;
  }
}

// Rule 1, URI: the PASS of `scheme://user:PASS@`, to the last `@` of the
// authority as far as a space, `?` or `#` (a password may hold `@` or `/`).
void mask_userinfo(std::string& s) {
  for (std::size_t at = s.find("://"); at != std::string::npos; at = s.find("://", at + 1)) {
    const std::size_t start = at + 3;
    std::size_t end = start;
    while (end < s.size() && !space(s[end]) && s[end] != '?' && s[end] != '#') ++end;
    const std::size_t sign = std::string_view(s).substr(start, end - start).rfind('@');
    if (sign == std::string_view::npos) continue;
    const std::size_t colon = s.find(':', start);
    if (colon < start + sign && colon + 1 < start + sign) s.replace(colon + 1, start + sign - colon - 1, kMask);
  }
}

core_detail::Mutex secrets_mu;
// The secrets remembered so far, longest first.
std::vector<std::string>& secrets() REQUIRES(secrets_mu) {
  static std::vector<std::string> s;
  return s;
}

}  // namespace

void remember_secrets(std::string_view text) {
  auto found = store_passwords(text);
  if (found.empty()) return;
  core_detail::MutexLock lock(secrets_mu);
  auto& all = secrets();
  for (auto& f : found)
    if (std::find(all.begin(), all.end(), f) == all.end()) all.push_back(std::move(f));
  std::sort(all.begin(), all.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

void forget_secrets() {
  core_detail::MutexLock lock(secrets_mu);
  secrets().clear();
}

std::string scrub(std::string_view text) {
  std::string out(text);
  mask_password_values(out);
  mask_userinfo(out);
  core_detail::MutexLock lock(secrets_mu);
  for (const auto& secret : secrets()) {
    for (std::size_t at = out.find(secret); at != std::string::npos;) {
      const std::size_t end = at + secret.size();
      const char before = at > 0 ? out[at - 1] : ' ', after = end < out.size() ? out[end] : ' ';
      const bool quoted = at > 0 && end < out.size() && (before == '"' || before == '\'') && after == before;
      const bool word = secret.size() >= kMinBareSecret && (at == 0 || !word_byte(before)) &&
                        (end == out.size() || !word_byte(after));
      if (quoted || word) {
        out.replace(at, secret.size(), kMask);
        at = out.find(secret, at + kMask.size());
      } else {
        at = out.find(secret, at + 1);
      }
    }
  }
  return out;
}

bool scrub_in_place(char* arg) {
  const std::size_t room = std::strlen(arg);
  const std::string masked = scrub(arg);
  if (masked == arg) return false;
  if (masked.size() <= room) {
    std::copy(masked.begin(), masked.end(), arg);
    std::fill(arg + masked.size(), arg + room, '\0');  // ps shows the rest as blanks
  } else {
    std::memset(arg, '*', room);  // `***` for a shorter secret does not fit: hide all of it
  }
  return true;
}

}  // namespace forgemeter::lease_uri
