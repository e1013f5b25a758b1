#include "proxy/cache_status.h"

namespace forgemeter::proxy {

std::optional<std::string> cache_status(CacheOutcome outcome, int upstream_status) {
  switch (outcome) {
    case CacheOutcome::unseen: return std::nullopt;
    case CacheOutcome::stored: return "forgemeter; fwd=uri-miss; stored";
    case CacheOutcome::not_stored: return "forgemeter; fwd=uri-miss";
    case CacheOutcome::revalidated: return "forgemeter; fwd=stale; fwd-status=304";
    case CacheOutcome::changed:
      return "forgemeter; fwd=stale; fwd-status=" + std::to_string(upstream_status) + "; stored";
    case CacheOutcome::collapsed: return "forgemeter; collapsed";
    case CacheOutcome::bypass: return "forgemeter; fwd=bypass";
  }
  return std::nullopt;
}

}  // namespace forgemeter::proxy
