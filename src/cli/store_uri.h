// store_uri.h — a store's text: `memory:`, a PostgreSQL conninfo / postgres:// URI,
// or an etcd:// (etcds://) URI (forgemeter/etcd_store.h).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "forgemeter/lease.h"

namespace forgemeter::cli {

// Whether `uri` names an etcd store (etcd:// or etcds://).
bool is_etcd(std::string_view uri);

// Throws UsageError for a text that is neither (e.g. an unknown scheme).
void check_store_kind(const std::string& uri);

// The store. Throws UsageError as check_store_kind() does, and CommandError when
// the PostgreSQL store rejects the conninfo or the etcd store its URI (the message has no password).
std::unique_ptr<LeaseStore> open_store(const std::string& uri);

}  // namespace forgemeter::cli
