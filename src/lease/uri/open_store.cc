#include "lease/uri/open_store.h"

#include <stdexcept>

#include <fmt/format.h>

#include "core/components.h"
#include "forgemeter/memory_store.h"
#if FORGEMETER_HAS_ETCD
#include "forgemeter/etcd_store.h"
#endif
#if FORGEMETER_HAS_POSTGRES
#include "forgemeter/postgres_store.h"
#endif
#include "lease/uri/secrets.h"
#include "lease/uri/store_error.h"

namespace forgemeter::lease_uri {

namespace {

// A store of a kind this build does not have (-DFORGEMETER_POSTGRES=OFF,
// -DFORGEMETER_ETCD=OFF): refused before anything is tried.
void check_store_built([[maybe_unused]] bool etcd) {
#if !FORGEMETER_HAS_ETCD
  if (etcd)
    throw StoreError(StoreError::Kind::not_given,
                     "this forgemeter was built without etcd support: the store can be memory:" +
                         std::string(FORGEMETER_HAS_POSTGRES ? " or a PostgreSQL conninfo/URI" : ""));
#endif
#if !FORGEMETER_HAS_POSTGRES
  if (!etcd)
    throw StoreError(StoreError::Kind::not_given,
                     "this forgemeter was built without PostgreSQL support: the store can be memory:" +
                         std::string(FORGEMETER_HAS_ETCD ? " or an etcd:// URI" : ""));
#endif
}

}  // namespace

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
  check_store_built(is_etcd(uri));
}

std::unique_ptr<LeaseStore> open_store(const std::string& uri) {
  check_store_kind(uri);
  if (uri == "memory:") return std::make_unique<MemoryStore>();
  try {
#if FORGEMETER_HAS_ETCD
    if (is_etcd(uri)) return std::make_unique<EtcdStore>(EtcdStoreOptions::from_uri(uri));
#endif
#if FORGEMETER_HAS_POSTGRES
    if (!is_etcd(uri)) return std::make_unique<PostgresStore>(PostgresStoreOptions{.conninfo = uri});
#endif
  } catch (const std::invalid_argument& e) {
    throw StoreError(StoreError::Kind::refused, scrub(fmt::format("the lease store: {}", e.what())));
  }
  throw std::logic_error("check_store_kind() let a store this build does not have through");
}

}  // namespace forgemeter::lease_uri
