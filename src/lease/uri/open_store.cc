#include "lease/uri/open_store.h"

#include <stdexcept>

#include <fmt/format.h>

#include "forgemeter/etcd_store.h"
#include "forgemeter/memory_store.h"
#include "forgemeter/postgres_store.h"
#include "lease/uri/secrets.h"
#include "lease/uri/store_error.h"

namespace forgemeter::lease_uri {

bool is_etcd(std::string_view uri) { return uri.rfind("etcd://", 0) == 0 || uri.rfind("etcds://", 0) == 0; }

void check_store_kind(const std::string& uri) {
  if (uri == "memory:") return;
  auto colon = uri.find("://");
  if (colon != std::string::npos) {
    std::string scheme = uri.substr(0, colon);
    if (scheme != "postgres" && scheme != "postgresql" && !is_etcd(uri))
      throw StoreError(
          StoreError::Kind::not_given,
          scrub(fmt::format(
              "the store '{}://…' is not a store: use memory:, a PostgreSQL conninfo/URI or an etcd:// URI", scheme)));
  } else if (uri.find('=') == std::string::npos) {
    // Not echoed: a text that is no conninfo may be a password pasted in the wrong place.
    throw StoreError(StoreError::Kind::not_given,
                     "the store given is neither memory:, a PostgreSQL conninfo (\"host=… dbname=…\") or "
                     "postgresql:// URI, nor an etcd:// URI");
  }
}

std::unique_ptr<LeaseStore> open_store(const std::string& uri) {
  check_store_kind(uri);
  if (uri == "memory:") return std::make_unique<MemoryStore>();
  try {
    if (is_etcd(uri)) return std::make_unique<EtcdStore>(EtcdStoreOptions::from_uri(uri));
    return std::make_unique<PostgresStore>(PostgresStoreOptions{.conninfo = uri});
  } catch (const std::invalid_argument& e) {
    throw StoreError(StoreError::Kind::refused, scrub(fmt::format("the lease store: {}", e.what())));
  }
}

}  // namespace forgemeter::lease_uri
