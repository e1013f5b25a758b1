// errors.h — how the report engine fails: an input cannot be opened or read
// (writing an output fails as core's WriteError). The message is one line naming the file
// and what to do; a command shows it and exits 1. Lines that cannot be parsed
// are not errors: they are counted and reported (ScanStats).
#pragma once

#include <stdexcept>

namespace forgemeter::report {

struct ReportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace forgemeter::report
