// spender.h — whom a proxied request is charged to, in this order:
//   1. X-Forgemeter-Installation (validated: installation_tokens.h);
//   2. the installation its token was issued for, learned from an
//      access_tokens answer that passed through (installation_tokens.h);
//   3. its credential's key (credential_keys.h);
//   4. nobody (installation 0): an anonymous request.
// Thread-safety: as the books it is given. Errors: none (but std::bad_alloc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "proxy/credential_keys.h"
#include "proxy/header_filter.h"
#include "proxy/installation_tokens.h"

namespace forgemeter::proxy {

struct Spender {
  std::uint64_t installation = 0;      // Request::installation
  std::string shown;                   // "101", "cred:0123456789ab", or "" (anonymous)
  std::optional<std::string> refused;  // why the request is refused; then `status` says how
  int status = 0;                      // 400 (a bad installation header), 429 (too many credentials)
};

Spender spender_of(const Inbound& request, CredentialKeys& keys, const InstallationTokens& tokens);

}  // namespace forgemeter::proxy
