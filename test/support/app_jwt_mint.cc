#include "support/app_jwt_mint.h"

#include "appauth/base64url.h"

#include <openssl/bio.h>
#include <openssl/encoder.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace fmtest {
namespace {

using Key = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;

void need(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("app_jwt_mint: OpenSSL failed to ") + what);
}

Key rsa_key(int bits) {
  Key key(EVP_RSA_gen(static_cast<unsigned>(bits)), EVP_PKEY_free);
  need(key != nullptr, "generate an RSA key");
  return key;
}

std::string bio_text(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(n));
}

std::string public_pem(EVP_PKEY* key) {
  Bio bio(BIO_new(BIO_s_mem()), BIO_free);
  need(bio && PEM_write_bio_PUBKEY(bio.get(), key) == 1, "write a public key");
  return bio_text(bio.get());
}

std::string pkcs1_public_pem(EVP_PKEY* key) {
  Bio bio(BIO_new(BIO_s_mem()), BIO_free);
  OSSL_ENCODER_CTX* ctx = OSSL_ENCODER_CTX_new_for_pkey(key, EVP_PKEY_PUBLIC_KEY, "PEM", "type-specific", nullptr);
  const bool ok = bio && ctx && OSSL_ENCODER_to_bio(ctx, bio.get()) == 1;
  OSSL_ENCODER_CTX_free(ctx);
  need(ok, "write an RSA public key");
  return bio_text(bio.get());
}

std::string private_pem_of(EVP_PKEY* key) {
  Bio bio(BIO_new(BIO_s_mem()), BIO_free);
  need(bio && PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) == 1,
       "write a private key");
  return bio_text(bio.get());
}

Key read_private(std::string_view pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
  need(bio != nullptr, "read a PEM buffer");
  Key key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr), EVP_PKEY_free);
  need(key != nullptr, "read a private key");
  return key;
}

std::string rsa_sign(std::string_view text, std::string_view private_pem, const EVP_MD* md) {
  const Key key = read_private(private_pem);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_PKEY_CTX* pctx = nullptr;
  need(ctx && EVP_DigestSignInit(ctx.get(), &pctx, md, nullptr, key.get()) == 1 &&
           EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) == 1,
       "start a signature");
  std::size_t len = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(text.data());
  need(EVP_DigestSign(ctx.get(), nullptr, &len, data, text.size()) == 1, "size a signature");
  std::string sig(len, '\0');
  need(EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, data, text.size()) == 1, "sign");
  sig.resize(len);
  return sig;
}

std::string hs256(std::string_view text, std::string_view secret) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  need(HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
            reinterpret_cast<const unsigned char*>(text.data()), text.size(), out, &len) != nullptr,
       "HMAC");
  return std::string(reinterpret_cast<char*>(out), len);
}

std::string signature(std::string_view alg, std::string_view text, std::string_view private_pem) {
  if (alg == "RS256") return rsa_sign(text, private_pem, EVP_sha256());
  if (alg == "RS512") return rsa_sign(text, private_pem, EVP_sha512());
  if (alg == "HS256") return hs256(text, public_pem(read_private(private_pem).get()));
  return {};  // "none", or an alg no one signs with
}

}  // namespace

const AppKeyPair& app_key_pair(int which) {
  static std::mutex mu;
  static std::map<int, AppKeyPair> made;  // never destroyed before the tests end; nodes stay put
  std::lock_guard lock(mu);
  auto it = made.find(which);
  if (it == made.end()) {
    const Key key = rsa_key(2048);
    it = made.emplace(which, AppKeyPair{public_pem(key.get()), pkcs1_public_pem(key.get()), private_pem_of(key.get())})
             .first;
  }
  return it->second;
}

std::string rsa_public_pem_of_bits(int bits) { return public_pem(rsa_key(bits).get()); }

std::string base64url(std::string_view bytes) { return forgemeter::appauth::base64url_encode(bytes); }

std::string mint_raw(std::string_view header_json, std::string_view payload_json, std::string_view private_pem) {
  const auto header = nlohmann::json::parse(header_json, nullptr, false);
  const std::string alg = header.is_object() && header.contains("alg") && header["alg"].is_string()
                              ? header["alg"].get<std::string>()
                              : std::string();
  std::string signed_text = base64url(header_json) + "." + base64url(payload_json);
  const std::string sig = signature(alg, signed_text, private_pem);
  return signed_text + "." + base64url(sig);
}

std::string mint(std::uint64_t app_id, std::string_view private_pem, std::int64_t iat, std::int64_t exp,
                 std::string_view alg) {
  const nlohmann::json header = {{"alg", alg}, {"typ", "JWT"}};
  const nlohmann::json payload = {{"iat", iat}, {"exp", exp}, {"iss", app_id}};
  return mint_raw(header.dump(), payload.dump(), private_pem);
}

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace fmtest
