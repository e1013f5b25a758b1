// option_file.h — a small file named on a command line (a token, a list of
// requests, a format, a store), read whole but never past a bound, and the
// check that a file holding a secret is private to its owner.
//
// read_option_file() refuses a directory, a file it cannot open or read, and
// one longer than its bound: a regular file by its size, before reading it;
// anything else (/dev/zero, a runaway pipe) once it has read one byte past
// the bound, its buffer never more than that: it fails at once instead of
// filling the memory. Given a `wait`, it also refuses a file whose end does
// not come within it (a FIFO no one writes to, a silent stdin).
// Errors are values (OptionFile::problem: what is wrong and what to do).
// Thread-safety: no state; stdin ("-") is the process's own.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace forgemeter::core_detail {

struct OptionFile {
  std::string text;                    // the whole file (empty when problem)
  std::optional<std::string> problem;  // "is a directory", "No such file or directory", "is longer than …"
};

// The file at `path` ("-": stdin), at most `max_bytes` bytes, read within
// `wait` (0: however long it takes).
OptionFile read_option_file(const std::string& path, std::size_t max_bytes,
                            std::chrono::milliseconds wait = std::chrono::milliseconds::zero());

// nullopt when group and others have no access to a file of `mode` (its
// st_mode); else the problem and its fix: "permissions 0644 are too open: it
// may hold <holds>, so it must not be accessible by group or others; run:
// chmod 600 <path>".
std::optional<std::string> too_open(unsigned mode, const std::string& path, std::string_view holds);

}  // namespace forgemeter::core_detail
