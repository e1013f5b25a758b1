#include "appauth/app_keys.h"

#include <openssl/decoder.h>
#include <openssl/evp.h>

#include <fmt/format.h>

namespace forgemeter::appauth {
namespace {

constexpr int kLeastBits = 2048;  // GitHub's App keys are 2048 bits; less is forgeable in time

// The RSA public key of `pem` (SubjectPublicKeyInfo or PKCS#1), or nullptr.
std::shared_ptr<EVP_PKEY> decode_public(std::string_view pem) {
  EVP_PKEY* pkey = nullptr;
  OSSL_DECODER_CTX* ctx =
      OSSL_DECODER_CTX_new_for_pkey(&pkey, "PEM", nullptr, "RSA", EVP_PKEY_PUBLIC_KEY, nullptr, nullptr);
  if (ctx == nullptr) return nullptr;
  auto* data = reinterpret_cast<const unsigned char*>(pem.data());
  std::size_t len = pem.size();
  const bool ok = OSSL_DECODER_from_data(ctx, &data, &len) == 1;
  OSSL_DECODER_CTX_free(ctx);
  if (!ok || pkey == nullptr) {
    EVP_PKEY_free(pkey);
    return nullptr;
  }
  return {pkey, EVP_PKEY_free};
}

}  // namespace

std::optional<std::string> AppKeys::add(std::uint64_t app_id, std::string_view pem) {
  if (app_id == 0) return "App ID 0: an App ID is a whole number from 1";
  if (keys_.count(app_id) != 0) return fmt::format("App {}: its key was given already", app_id);
  if (pem.size() > kMaxPemBytes)
    return fmt::format("App {}: {} bytes is not a PEM public key (at most {})", app_id, pem.size(), kMaxPemBytes);
  // Refused by its armour, before OpenSSL reads it: a key that can sign
  // never enters the process that only checks.
  if (pem.find("PRIVATE KEY") != std::string_view::npos)
    return fmt::format(
        "App {}: that is a private key; give its public half instead "
        "(openssl rsa -in app.pem -pubout)",
        app_id);
  if (pem.find("-----BEGIN PUBLIC KEY-----") == std::string_view::npos &&
      pem.find("-----BEGIN RSA PUBLIC KEY-----") == std::string_view::npos)
    return fmt::format("App {}: not a PEM public key (no BEGIN PUBLIC KEY or BEGIN RSA PUBLIC KEY line)", app_id);
  auto key = decode_public(pem);
  if (!key || EVP_PKEY_is_a(key.get(), "RSA") != 1) return fmt::format("App {}: not a PEM RSA public key", app_id);
  if (const int bits = EVP_PKEY_get_bits(key.get()); bits < kLeastBits)
    return fmt::format("App {}: an RSA key of {} bits; give one of at least {}", app_id, bits, kLeastBits);
  keys_.emplace(app_id, std::move(key));
  return std::nullopt;
}

EVP_PKEY* AppKeys::key_of(std::uint64_t app_id) const {
  const auto it = keys_.find(app_id);
  return it == keys_.end() ? nullptr : it->second.get();
}

}  // namespace forgemeter::appauth
