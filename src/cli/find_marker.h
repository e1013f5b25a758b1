// find_marker.h — the report's hot loop: find a short marker in a large block.
//
// Compares 16 or 32 bytes at a time against the marker's first and fourth
// bytes (SSE2, or AVX2 where the CPU has it) and confirms candidates with
// memcmp: a few times faster than memmem on log text for markers like
// "forge ". Falls back to memmem off x86-64 or for markers under 4 bytes.
#pragma once

#include <string_view>

namespace forgemeter::cli {

// The first occurrence of `marker` in [p, end), or nullptr.
const char* find_marker(const char* p, const char* end, std::string_view marker) noexcept;

}  // namespace forgemeter::cli
