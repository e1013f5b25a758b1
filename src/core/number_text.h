// number_text.h — numbers as people write them on a command line or in the
// tool's own files, one rule for every option and field: a whole number is
// digits only (no sign, no spaces, no fraction, no 0x), a decimal is digits
// with at most one '.'; either within the range the caller accepts, never
// wrapped or rounded into it. The error says the real range in our words.
// Internal to the rooms (not installed). Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace forgemeter::core_detail {

// `text` as a whole number in [lo, hi], or nullopt.
std::optional<std::uint64_t> parse_whole(std::string_view text, std::uint64_t lo, std::uint64_t hi) noexcept;

// "'x' is not a replica count: give a whole number from 1 to 50" (`what`:
// "a replica count"). Quotes `text` as given: the caller escapes it.
std::string whole_problem(std::string_view text, std::string_view what, std::uint64_t lo, std::uint64_t hi);

// `text` as a decimal (5, 2.5, .5, 5.) in [lo, hi], or nullopt.
std::optional<double> parse_decimal(std::string_view text, double lo, double hi) noexcept;

// "'x' is not a speed: give a number from 10 to 5000".
std::string decimal_problem(std::string_view text, std::string_view what, double lo, double hi);

}  // namespace forgemeter::core_detail
