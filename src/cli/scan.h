// scan.h — reading meter lines out of logs into a Fleet, with skipped-line accounting.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/fleet.h"

namespace forgemeter::cli {

inline constexpr std::size_t kFirstReasons = 5;

struct ScanStats {
  std::uint64_t bytes = 0;    // text read (after inflating)
  std::uint64_t lines = 0;    // meter lines summed
  std::uint64_t skipped = 0;  // meter lines that did not parse
  std::vector<std::string> reasons;   // the first kFirstReasons: "file:line: reason"
  std::vector<std::string> problems;  // inputs that lost data (corrupt/truncated gzip)
};

struct ScanOptions {
  // JSON key whose string value names the line's replica; empty: one source per input.
  std::string source_field;
};

class Scanner {
 public:
  Scanner(Fleet& fleet, ScanOptions options) : fleet_(fleet), options_(std::move(options)) {}

  // Every input in order ("-" = stdin). Throws Failure when one cannot be opened or read.
  void scan_inputs(const std::vector<std::string>& paths);

  // One log line from `source_name` (for callers that hold lines in memory).
  void scan_line_from(std::string_view line, std::string_view source_name);

  const ScanStats& stats() const { return stats_; }

 private:
  void take(std::string_view line, std::uint32_t default_source, const char* where_name,
            const std::function<std::uint64_t()>& where_line);

  Fleet& fleet_;
  ScanOptions options_;
  ScanStats stats_;
  std::uint64_t memory_lines_ = 0;
};

// The string value of top-level-looking key `key` in a JSON log record, if the
// record has one (a plain scan, no full JSON parse: `"key": "value"`).
std::optional<std::string> json_string_field(std::string_view record, std::string_view key);

}  // namespace forgemeter::cli
