// AppJwtSigner (app_jwt_signer.h).
#include "demo/app_jwt_signer.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <stdexcept>

#include <fmt/format.h>

#include "appauth/base64url.h"

namespace forgemeter::demo {
namespace {

void need(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("the demo's App: OpenSSL failed to ") + what);
}

std::string public_pem_of(EVP_PKEY* key) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  need(bio && PEM_write_bio_PUBKEY(bio.get(), key) == 1, "write its public key");
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return {data, static_cast<std::size_t>(n)};
}

// RSASSA-PKCS1-v1_5 with SHA-256 (JWS's RS256) of `text` under `key`.
std::string rs256(EVP_PKEY* key, std::string_view text) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_PKEY_CTX* pctx = nullptr;  // owned by ctx
  need(ctx && EVP_DigestSignInit(ctx.get(), &pctx, EVP_sha256(), nullptr, key) == 1 &&
           EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) == 1,
       "start a signature");
  const auto* data = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t len = 0;
  need(EVP_DigestSign(ctx.get(), nullptr, &len, data, text.size()) == 1, "size a signature");
  std::string sig(len, '\0');
  need(EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, data, text.size()) == 1, "sign");
  sig.resize(len);
  return sig;
}

}  // namespace

AppJwtSigner::AppJwtSigner(std::uint64_t app_id) : app_id_(app_id), key_(EVP_RSA_gen(2048), EVP_PKEY_free) {
  need(key_ != nullptr, "make an RSA-2048 key");
  public_pem_ = public_pem_of(key_.get());
}

std::string AppJwtSigner::jwt(UtcMillis now) const {
  const auto s = std::chrono::floor<std::chrono::seconds>(now).time_since_epoch().count();
  using appauth::base64url_encode;
  const std::string signed_text =
      base64url_encode(R"({"alg":"RS256","typ":"JWT"})") + "." +
      base64url_encode(fmt::format(R"({{"iat":{},"exp":{},"iss":{}}})", s - 60, s + 540, app_id_));
  return signed_text + "." + base64url_encode(rs256(key_.get(), signed_text));
}

}  // namespace forgemeter::demo
