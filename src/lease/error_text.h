// Internal: a store's error text made fit for a log line — one line, no
// control bytes (each becomes a space), at most `max` bytes of the original.
// The PostgreSQL and etcd stores pass on what a server or libcurl said.
// Thread-safety: a pure function.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace forgemeter::lease_detail {

std::string one_line(std::string_view s, std::size_t max = std::string_view::npos);

}  // namespace forgemeter::lease_detail
