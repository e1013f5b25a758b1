#include "proxy/cache_status.h"

namespace forgemeter::proxy {

std::optional<std::string> cache_status(CacheOutcome outcome) {
  switch (outcome) {
    case CacheOutcome::no_cache: return std::nullopt;
    case CacheOutcome::stored: return "forgemeter; fwd=uri-miss; stored";
    case CacheOutcome::changed: return "forgemeter; fwd=stale; fwd-status=200; stored";
    case CacheOutcome::not_stored: return "forgemeter; fwd=uri-miss";
    case CacheOutcome::revalidated: return "forgemeter; fwd=stale; fwd-status=304";
    case CacheOutcome::coalesced: return "forgemeter; collapsed";
    case CacheOutcome::bypassed: return "forgemeter; fwd=bypass";
  }
  return std::nullopt;
}

}  // namespace forgemeter::proxy
