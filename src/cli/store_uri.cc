#include "cli/store_uri.h"

#include <stdexcept>

#include <fmt/format.h>

#include "cli/errors.h"
#include "forgemeter/memory_store.h"
#include "forgemeter/postgres_store.h"

namespace forgemeter::cli {

std::unique_ptr<LeaseStore> open_store(const std::string& uri) {
  if (uri == "memory:") return std::make_unique<MemoryStore>();
  auto colon = uri.find("://");
  if (colon != std::string::npos) {
    std::string scheme = uri.substr(0, colon);
    if (scheme != "postgres" && scheme != "postgresql")
      throw UsageError(fmt::format("--store '{}://…' is not a store: use memory: or a PostgreSQL conninfo/URI", scheme));
  } else if (uri.find('=') == std::string::npos) {
    throw UsageError(fmt::format(
        "--store '{}' is neither memory: nor a PostgreSQL conninfo (\"host=… dbname=…\") or postgresql:// URI", uri));
  }
  try {
    return std::make_unique<PostgresStore>(PostgresStoreOptions{.conninfo = uri});
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--store: {}", e.what()));
  }
}

}  // namespace forgemeter::cli
