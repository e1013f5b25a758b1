#include "proxy/credential_keys.h"

#include "core/ascii.h"
#include "core/origin.h"

namespace forgemeter::proxy {

using core_detail::iequals;

std::string credential_of(const std::vector<serve::Field>& fields) {
  std::string out;
  for (const auto& [name, value] : fields) {
    if (!core_detail::is_credential_header(name) || iequals(name, "Proxy-Authorization")) continue;
    out += core_detail::ascii_lowercase(name);
    out += '\0';
    out += value;
    out += '\0';
  }
  return out;
}

CredentialKeys::CredentialKeys(CredentialKeyOptions options)
    : options_(options), clock_(options.clock != nullptr ? *options.clock : system_clock()) {}

Keyed CredentialKeys::key(const std::vector<serve::Field>& fields) {
  const std::string credential = credential_of(fields);
  if (credential.empty()) return {};
  const std::uint64_t bits = hash_.mac64(credential) & ((std::uint64_t{1} << 48) - 1);
  const SteadyTime now = clock_.steady_now();
  {
    core_detail::MutexLock lock(mu_);
    auto it = last_used_.find(bits);
    if (it == last_used_.end() && last_used_.size() >= options_.max_keys) {
      // Room from the key unused longest, if it has been idle long enough.
      auto oldest = last_used_.begin();
      if (oldest == last_used_.end()) return {std::nullopt, "the proxy keeps no credentials (max_keys 0)"};
      for (auto i = last_used_.begin(); i != last_used_.end(); ++i)
        if (i->second < oldest->second) oldest = i;
      if (now - oldest->second < options_.idle)
        return {std::nullopt, "the proxy keeps " + std::to_string(options_.max_keys) +
                                  " credentials at most, and none has been idle long enough to forget"};
      last_used_.erase(oldest);
    }
    last_used_[bits] = now;
  }
  return {CredentialKey{kCredentialIdBase + bits, "cred:" + low_hex(bits, 12)}, std::nullopt};
}

std::size_t CredentialKeys::size() const {
  core_detail::MutexLock lock(mu_);
  return last_used_.size();
}

}  // namespace forgemeter::proxy
