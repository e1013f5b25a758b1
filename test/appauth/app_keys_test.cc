// The Apps' keys: public RSA keys of 2048 bits or more, each App once, and
// never a private key.
#include "appauth/app_keys.h"

#include "support/app_jwt_mint.h"

#include <doctest/doctest.h>

#include <string>

namespace fa = forgemeter::appauth;

TEST_CASE("both armours of a public key are taken, each App once") {
  fa::AppKeys keys;
  CHECK(keys.empty());
  CHECK_FALSE(keys.add(1, fmtest::app_key_pair(0).public_pem));
  CHECK_FALSE(keys.add(2, fmtest::app_key_pair(1).rsa_public_pem));
  CHECK(keys.size() == 2);
  CHECK(keys.has(2));
  CHECK(keys.key_of(1) != nullptr);
  CHECK(keys.key_of(3) == nullptr);
  const auto again = keys.add(1, fmtest::app_key_pair(1).public_pem);
  REQUIRE(again);
  CHECK(again->find("given already") != std::string::npos);
  CHECK(keys.size() == 2);
}

TEST_CASE("a private key is refused with how to derive its public half") {
  fa::AppKeys keys;
  const auto why = keys.add(1, fmtest::app_key_pair(0).private_pem);
  REQUIRE(why);
  CHECK(why->find("private key") != std::string::npos);
  CHECK(why->find("openssl rsa -in app.pem -pubout") != std::string::npos);
  // The PKCS#1 armour of a private key too ("BEGIN RSA PRIVATE KEY").
  std::string pkcs1 = fmtest::app_key_pair(0).private_pem;
  for (const std::string from : {"BEGIN PRIVATE KEY", "END PRIVATE KEY"})
    pkcs1.replace(pkcs1.find(from), from.size(), from.substr(0, from.find(' ') + 1) + "RSA PRIVATE KEY");
  CHECK(keys.add(1, pkcs1)->find("private key") != std::string::npos);
  CHECK(keys.empty());
}

TEST_CASE("App 0, a weak key, not a key, too much text") {
  fa::AppKeys keys;
  CHECK(keys.add(0, fmtest::app_key_pair(0).public_pem)->find("App ID 0") != std::string::npos);
  CHECK(keys.add(1, fmtest::rsa_public_pem_of_bits(1024))->find("1024 bits") != std::string::npos);
  CHECK(keys.add(1, "hello")->find("not a PEM public key") != std::string::npos);
  CHECK(keys.add(1, "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")->find("not a PEM RSA") !=
        std::string::npos);
  CHECK(keys.add(1, std::string(fa::kMaxPemBytes + 1, 'A'))->find("at most") != std::string::npos);
  CHECK(keys.empty());
}
