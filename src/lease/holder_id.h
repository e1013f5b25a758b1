// Internal: the owner a campaign writes to the store — its spec.owner tagged
// with "#" and 12 random hex digits drawn per campaign() call, so two
// campaigns given one owner name are two holders (forgemeter/campaign.h).
// Thread-safety: safe from any thread.
#pragma once

#include <string>
#include <string_view>

namespace forgemeter::lease_detail {

// `owner` + "#" + 12 random hex digits (std::random_device).
std::string tagged_owner(std::string_view owner);

}  // namespace forgemeter::lease_detail
