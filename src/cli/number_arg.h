// number_arg.h — CLI11 checks for the numbers options take, in the tool's own
// words with the range the option really accepts (core/number_text.h), run
// before CLI11 converts the text: "--retry: '99' is not a retry count: give a
// whole number from 0 to 10". The message quotes the text as given: the
// program escapes what it prints. Header-only: forgemeter and forgemeter-demo
// share it. Thread-safety: none needed (built once, at start-up).
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "core/number_text.h"

namespace forgemeter::cli {

// A whole number in [lo, hi]; `what` names it ("a retry count").
inline CLI::Validator whole_number(std::uint64_t lo, std::uint64_t hi, const std::string& what) {
  auto check = [=](std::string& text) -> std::string {
    if (core_detail::parse_whole(text, lo, hi)) return {};
    return core_detail::whole_problem(text, what, lo, hi);
  };
  return CLI::Validator(check, fmt::format("{}-{}", lo, hi));
}

// A decimal number in [lo, hi] (600, 2.5).
inline CLI::Validator decimal_number(double lo, double hi, const std::string& what) {
  auto check = [=](std::string& text) -> std::string {
    if (core_detail::parse_decimal(text, lo, hi)) return {};
    return core_detail::decimal_problem(text, what, lo, hi);
  };
  return CLI::Validator(check, fmt::format("{}-{}", lo, hi));
}

}  // namespace forgemeter::cli
