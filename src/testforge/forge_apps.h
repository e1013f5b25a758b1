// forge_apps.h — the GitHub Apps a loopback forge knows (ForgeOptions::apps):
// plain data, so that forge.h names them without the App's machinery
// (app_tokens.h, OpenSSL).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace forgemeter::testforge {

// An installation of an App: the account that installed it, the
// repositories of that account it may reach, the permissions it was granted.
struct ForgeInstallation {
  std::uint64_t id = 0;
  std::string account = "o";
  std::vector<std::string> repositories = {"r"};  // names under `account`
  std::map<std::string, std::string> permissions = {
      {"contents", "read"}, {"metadata", "read"}, {"pull_requests", "write"}};
};

// A GitHub App: its ID, its public key (PEM; the forge never sees the private one).
struct ForgeApp {
  std::uint64_t id = 0;
  std::string public_key_pem;
  std::vector<ForgeInstallation> installations;
};

}  // namespace forgemeter::testforge
