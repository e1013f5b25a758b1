#include "proxy/spender.h"

#include "core/ascii.h"
#include "core/authorization.h"

namespace forgemeter::proxy {

Spender spender_of(const Inbound& request, CredentialKeys& keys, const InstallationTokens& tokens) {
  Spender s;
  if (request.installation) {
    if (auto why = why_bad_installation(*request.installation)) {
      s.refused = std::string(kInstallationHeader) + ": " + *why;
      s.status = 400;
      return s;
    }
    s.installation = *parse_installation(*request.installation);
    s.shown = std::to_string(s.installation);
    return s;
  }
  for (const auto& [name, value] : request.forward) {
    if (!core_detail::iequals(name, "Authorization")) continue;
    const auto token = core_detail::authorization_token(value);
    const auto installation = token ? tokens.installation_of(*token) : std::nullopt;
    if (!installation) break;
    s.installation = *installation;
    s.shown = std::to_string(s.installation);
    return s;
  }
  Keyed keyed = keys.key(request.forward);
  if (keyed.refused) {
    s.refused = std::move(keyed.refused);
    s.status = 429;
  } else if (keyed.key) {
    s.installation = keyed.key->id;
    s.shown = std::move(keyed.key->shown);
  }
  return s;
}

}  // namespace forgemeter::proxy
