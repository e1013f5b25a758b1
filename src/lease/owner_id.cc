// make_owner_id(): host name + "-" + 12 random hex digits.
#include <unistd.h>

#include <array>
#include <random>

#include <fmt/format.h>

#include "forgemeter/campaign.h"

namespace forgemeter {

std::string make_owner_id() {
  std::array<char, 256> buf{};
  std::string host;
  if (::gethostname(buf.data(), buf.size() - 1) == 0) host = buf.data();
  for (char& c : host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
    if (!ok) c = '_';
  }
  if (host.empty()) host = "host";
  constexpr std::size_t kSuffix = 13;  // "-" + 12 hex digits
  if (host.size() > kLeaseTextMaxBytes - kSuffix) host.resize(kLeaseTextMaxBytes - kSuffix);
  std::random_device rd;
  const std::uint64_t bits = (std::uint64_t{rd()} << 32 | rd()) & 0xffff'ffff'ffffULL;
  return fmt::format("{}-{:012x}", host, bits);
}

}  // namespace forgemeter
