// find_marker.h — the report's hot loops: find a short marker in a large
// block, and count the newlines of one.
//
// Compares 16 or 32 bytes at a time against the marker's first and fourth
// bytes (SSE2, or AVX2 where the CPU has it) and confirms candidates with
// memcmp: a few times faster than memmem on log text for markers like
// "forge ". Falls back to memmem off x86-64 or for markers under 4 bytes.
#pragma once

#include <cstdint>
#include <string_view>

namespace forgemeter::report {

// The first occurrence of `marker` in [p, end), or nullptr.
const char* find_marker(const char* p, const char* end, std::string_view marker) noexcept;

// How many '\n' bytes [p, end) holds (32 bytes a step with AVX2).
std::uint64_t count_newlines(const char* p, const char* end) noexcept;

}  // namespace forgemeter::report
