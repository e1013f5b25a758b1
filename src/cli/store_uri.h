// store_uri.h — a store's text: `memory:` or a PostgreSQL conninfo / postgres:// URI.
#pragma once

#include <memory>
#include <string>

#include "forgemeter/lease.h"

namespace forgemeter::cli {

// Throws UsageError for a text that is neither (e.g. an unknown scheme).
void check_store_kind(const std::string& uri);

// The store. Throws UsageError as check_store_kind() does, and Failure when
// the PostgreSQL store rejects the conninfo (the message has no password).
std::unique_ptr<LeaseStore> open_store(const std::string& uri);

}  // namespace forgemeter::cli
