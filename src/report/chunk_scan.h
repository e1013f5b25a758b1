// chunk_scan.h — one plain file read by several threads.
//
// The file is cut into pieces of bytes (a piece reads the lines that begin
// in it, the last of them to its end); worker threads take pieces
// in file order, each into its own Fleet with its own counts, and the calling
// thread folds the finished pieces into the caller's Fleet strictly in file
// order (Fleet::absorb), as soon as each is done, so at most a few pieces'
// sums are held at once. The result is exactly what one thread reading the
// whole text gives: the same sums, source ids in order of first appearance,
// lowest readings with the same tie-breaks, and the same first skip reasons
// with their line numbers.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "report/fleet.h"
#include "report/input.h"
#include "report/scanner.h"

namespace forgemeter::report {

struct ChunkOptions {
  std::string_view marker;
  std::string source_field;
  unsigned threads = 2;         // including the calling thread
  std::size_t chunk_bytes = 0;  // nominal piece size; 0 = automatic
  const EntryFilter* filter = nullptr;
  bool anchored = false;  // ScanOptions::anchored
};

// Reads `file`, the whole of input `name`, into `fleet` and `stats`. No
// exception escapes a worker: what one threw (a read error's ReportError,
// std::bad_alloc) is rethrown here after every worker has stopped.
void scan_in_chunks(const LogReader::PlainFile& file, const std::string& name, const ChunkOptions& options,
                    Fleet& fleet, ScanStats& stats);

}  // namespace forgemeter::report
