#include "testforge/test_ca.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <stdexcept>

namespace forgemeter::testforge {
namespace {

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("test CA: OpenSSL failed to ") + what);
}

EVP_PKEY* new_key() {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  check(key != nullptr, "generate an EC key");
  return key;
}

void add_extension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  check(ext != nullptr, "make an extension");
  const int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  check(ok == 1, "add an extension");
}

X509* new_cert(EVP_PKEY* key, const std::string& common_name) {
  X509* cert = X509_new();
  check(cert != nullptr, "allocate a certificate");
  X509_set_version(cert, 2);
  unsigned char serial[8];
  check(RAND_bytes(serial, sizeof serial) == 1, "draw a serial");
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert), 24L * 3600);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(common_name.c_str()), -1,
                             -1, 0);
  return cert;
}

// PEM text of what `write` puts into a memory BIO.
template <class Write>
std::string pem_of(Write write, const char* what) {
  BIO* bio = BIO_new(BIO_s_mem());
  check(bio != nullptr && write(bio) == 1, what);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<std::size_t>(n));
  BIO_free(bio);
  return out;
}

}  // namespace

TestCa::TestCa(const std::string& name) {
  ca_key_ = new_key();
  ca_cert_ = new_cert(ca_key_, name);
  X509_set_issuer_name(ca_cert_, X509_get_subject_name(ca_cert_));
  add_extension(ca_cert_, ca_cert_, NID_basic_constraints, "critical,CA:TRUE");
  add_extension(ca_cert_, ca_cert_, NID_key_usage, "critical,keyCertSign,cRLSign");
  add_extension(ca_cert_, ca_cert_, NID_subject_key_identifier, "hash");
  check(X509_sign(ca_cert_, ca_key_, EVP_sha256()) > 0, "sign the CA");

  server_key_ = new_key();
  server_cert_ = new_cert(server_key_, "api.forge.test");
  X509_set_issuer_name(server_cert_, X509_get_subject_name(ca_cert_));
  add_extension(server_cert_, ca_cert_, NID_basic_constraints, "critical,CA:FALSE");
  add_extension(server_cert_, ca_cert_, NID_ext_key_usage, "serverAuth");
  add_extension(server_cert_, ca_cert_, NID_subject_alt_name, "DNS:*.forge.test,DNS:localhost,IP:127.0.0.1");
  add_extension(server_cert_, ca_cert_, NID_authority_key_identifier, "keyid");
  check(X509_sign(server_cert_, ca_key_, EVP_sha256()) > 0, "sign the server certificate");

  ca_pem_ = pem_of([this](BIO* b) { return PEM_write_bio_X509(b, ca_cert_); }, "write the CA as PEM");
}

std::string TestCa::server_cert_pem() const {
  return pem_of([this](BIO* b) { return PEM_write_bio_X509(b, server_cert_); }, "write the certificate as PEM");
}

std::string TestCa::server_key_pem() const {
  return pem_of(
      [this](BIO* b) { return PEM_write_bio_PrivateKey(b, server_key_, nullptr, nullptr, 0, nullptr, nullptr); },
      "write the key as PEM");
}

TestCa::~TestCa() {
  X509_free(server_cert_);
  EVP_PKEY_free(server_key_);
  X509_free(ca_cert_);
  EVP_PKEY_free(ca_key_);
}

}  // namespace forgemeter::testforge
