// InstallationToken (installation_token.h).
#include "demo/installation_token.h"

#include <fmt/format.h>

#include "proxy/installation_tokens.h"

namespace forgemeter::demo {

InstallationToken::InstallationToken(const AppJwtSigner& app, std::uint64_t installation, const Clock& clock,
                                     std::string base)
    : app_(app), installation_(installation), clock_(clock), base_(std::move(base)) {}

std::optional<std::string> InstallationToken::token(Transport& through, HourEnd& end) {
  std::lock_guard lock(mu_);
  if (!token_.empty() && expires_at_ - clock_.now() > kRenewBefore) return token_;
  Request r;
  r.method = "POST";
  r.url = fmt::format("{}/app/installations/{}/access_tokens", base_, installation_);
  r.bearer = app_.jwt(clock_.now());
  r.lane = Lane(kAppTokenLane);
  // GitHub bills an App's own calls to the App; the lines show them beside
  // the installation's requests, as a proxy charges a verified JWT's ask.
  r.installation = installation_;
  const std::optional<Response> res = end.perform(through, std::move(r));
  if (!res || res->status != 201) return std::nullopt;
  // The forge's answer as GitHub's: {"token", "expires_at", …} (the proxy's reader of it).
  auto minted = proxy::token_answer(res->body);
  if (!minted) return std::nullopt;
  token_ = std::move(minted->token);
  expires_at_ = minted->expires_at;
  return token_;
}

}  // namespace forgemeter::demo
