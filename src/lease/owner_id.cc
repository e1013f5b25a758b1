// make_owner_id(): host name + "-" + 12 random hex digits; a campaign's
// tagged owner, owner + "#" + 12 random hex digits, and its name.
#include <unistd.h>

#include <array>
#include <random>

#include <fmt/format.h>

#include "forgemeter/campaign.h"
#include "lease/holder_id.h"

namespace forgemeter {
namespace {

constexpr std::size_t kHexDigits = 12;

std::string random_hex() {
  std::random_device rd;
  const std::uint64_t bits = (std::uint64_t{rd()} << 32 | rd()) & 0xffff'ffff'ffffULL;
  return fmt::format("{:012x}", bits);
}

bool lower_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

}  // namespace

std::string make_owner_id() {
  std::array<char, 256> buf{};
  std::string host;
  if (::gethostname(buf.data(), buf.size() - 1) == 0) host = buf.data();
  for (char& c : host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
    if (!ok) c = '_';
  }
  if (host.empty()) host = "host";
  constexpr std::size_t kSuffix = 1 + kHexDigits;  // "-" + 12 hex digits
  if (host.size() > kCampaignOwnerMaxBytes - kSuffix) host.resize(kCampaignOwnerMaxBytes - kSuffix);
  return host + "-" + random_hex();
}

std::string_view holder_name(std::string_view holder) noexcept {
  if (holder.size() <= kCampaignTagBytes) return holder;
  const std::string_view tag = holder.substr(holder.size() - kCampaignTagBytes);
  if (tag[0] != '#') return holder;
  for (char c : tag.substr(1))
    if (!lower_hex(c)) return holder;
  return holder.substr(0, holder.size() - kCampaignTagBytes);
}

namespace lease_detail {

std::string tagged_owner(std::string_view owner) { return std::string(owner) + "#" + random_hex(); }

}  // namespace lease_detail
}  // namespace forgemeter
