// open_store.h — a store's text: `memory:`, a PostgreSQL conninfo / postgres://
// URI, or an etcd:// (etcds://) URI (forgemeter/etcd_store.h), and the store it names.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "forgemeter/lease.h"

namespace forgemeter::lease_uri {

// Whether `uri` names an etcd store (etcd:// or etcds://).
bool is_etcd(std::string_view uri);

// Throws StoreError(not_given) for a text that is neither (e.g. an unknown scheme).
void check_store_kind(const std::string& uri);

// The store. Throws as check_store_kind() does, and StoreError(refused) when
// the PostgreSQL store rejects the conninfo or the etcd store its URI (the
// message has no password).
std::unique_ptr<LeaseStore> open_store(const std::string& uri);

}  // namespace forgemeter::lease_uri
