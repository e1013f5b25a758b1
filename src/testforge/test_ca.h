// test_ca.h — a throwaway certificate authority for the loopback forge's TLS listener.
//
// Generated in memory at start-up (OpenSSL, EC P-256), never written to the
// repository: a CA certificate and one server certificate it signed, valid for
// *.forge.test, localhost and 127.0.0.1, for one day.
//
// Ownership: TestCa owns its keys and certificates (freed with it).
// Thread-safety: immutable after construction.
// Errors: the constructor throws std::runtime_error when OpenSSL fails.
#pragma once

#include <memory>
#include <string>

using X509 = struct x509_st;
using EVP_PKEY = struct evp_pkey_st;

namespace forgemeter::testforge {

class TestCa {
 public:
  // `name` goes into the CA's common name (two CAs made in one test differ).
  explicit TestCa(const std::string& name = "forgemeter loopback test CA");
  ~TestCa();
  TestCa(const TestCa&) = delete;
  TestCa& operator=(const TestCa&) = delete;

  const std::string& ca_pem() const { return ca_pem_; }
  X509* server_cert() const { return server_cert_; }
  EVP_PKEY* server_key() const { return server_key_; }
  // The server certificate and its private key as PEM, for a server that
  // reads them from files (the HTTP/2 test's nghttpd).
  std::string server_cert_pem() const;
  std::string server_key_pem() const;

 private:
  EVP_PKEY* ca_key_ = nullptr;
  X509* ca_cert_ = nullptr;
  EVP_PKEY* server_key_ = nullptr;
  X509* server_cert_ = nullptr;
  std::string ca_pem_;
};

}  // namespace forgemeter::testforge
