// errors.h — how the report engine fails: an input cannot be opened or read,
// or an output cannot be written. The message is one line naming the file
// and what to do; a command shows it and exits 1. Lines that cannot be parsed
// are not errors: they are counted and reported (ScanStats).
#pragma once

#include <stdexcept>

namespace forgemeter::report {

struct ReportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The old name, for output.{h,cc} only until they leave for src/core (with an
// error type of their own there); nothing else names it.
using Failure = ReportError;

}  // namespace forgemeter::report
