// store_uri.h — `--store URI`: `memory:` or a PostgreSQL conninfo / postgres:// URI.
#pragma once

#include <memory>
#include <string>

#include "forgemeter/lease.h"

namespace forgemeter::cli {

// Throws UsageError for a URI that is neither (e.g. an unknown scheme).
std::unique_ptr<LeaseStore> open_store(const std::string& uri);

}  // namespace forgemeter::cli
