// app_jwt_signer.h — the demo's GitHub App: an RSA-2048 key pair made when
// the demo starts (no key lives in the repository) and the App JWTs its
// replicas sign with the private half, as an App's own clients do (octokit,
// PyGithub): RS256, `iss` the App ID, `iat` a minute before the client's
// now and `exp` nine minutes after it (GitHub allows ten minutes of life),
// whole seconds. The forge and the proxies get public_pem() only.
// Thread-safety: jwt() from many threads at once (OpenSSL's keys are safe
// to share; each signature has its own context).
// Errors: the constructor throws std::runtime_error when OpenSSL cannot make
// or write the key; jwt() too when it cannot sign (a broken machine).
#pragma once

#include <openssl/types.h>

#include <cstdint>
#include <memory>
#include <string>

#include "forgemeter/clock.h"

namespace forgemeter::demo {

class AppJwtSigner {
 public:
  explicit AppJwtSigner(std::uint64_t app_id);

  std::uint64_t app_id() const noexcept { return app_id_; }
  // "-----BEGIN PUBLIC KEY-----…": what the forge and a proxy are given.
  const std::string& public_pem() const noexcept { return public_pem_; }
  // A JWT for the App, its times from `now` (the client's clock).
  std::string jwt(UtcMillis now) const;

 private:
  std::uint64_t app_id_;
  std::shared_ptr<EVP_PKEY> key_;
  std::string public_pem_;
};

}  // namespace forgemeter::demo
