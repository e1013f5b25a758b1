// scanner.h — reading meter lines out of logs into a Fleet, with skipped-line accounting.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "report/block_scan.h"
#include "report/cri_join.h"
#include "report/filter.h"
#include "report/fleet.h"

namespace forgemeter::report {

inline constexpr std::size_t kFirstReasons = 5;

// The first and last hour the meter lines read end, kept by the filters or
// not: what a report the filters left empty says the input did hold.
struct HourSpan {
  std::optional<Instant> first, last;  // hour endings
  void add(Instant hour_ending) {
    if (!first || hour_ending < *first) first = hour_ending;
    if (!last || hour_ending > *last) last = hour_ending;
  }
  void add(const HourSpan& other) {
    if (!other.first) return;
    add(*other.first);
    add(*other.last);
  }
};

struct ScanStats {
  std::uint64_t bytes = 0;            // text read (after inflating)
  std::uint64_t lines = 0;            // meter lines summed
  std::uint64_t skipped = 0;          // meter lines not summed: malformed, cut or dropped (`dropped` of them)
  std::uint64_t dropped = 0;          // meter lines cut by another line, over the line limit, or pieces of a split line
  std::vector<std::string> reasons;   // the first kFirstReasons: "file:line: reason"
  std::vector<std::string> problems;  // inputs that lost data (corrupt/truncated gzip)
  std::vector<std::string> warnings;  // nothing lost (e.g. a file named twice, read once)
  HourSpan read;                      // the hours of every meter line that parsed, filtered out or not
};

struct ScanOptions {
  // JSON key whose string value names the line's replica; empty: one source per input.
  std::string source_field;
  // Threads reading a plain regular file (split at line boundaries into
  // chunks read in parallel, merged in file order: the same report as one
  // thread gives); 0 = the hardware's concurrency. Streams, stdin and gzip
  // are read by one thread.
  unsigned threads = 1;
  // Nominal chunk size for the threads; 0 = automatic. Tests use tiny chunks.
  std::size_t chunk_bytes = 0;
  // The entries summed (filter.h); empty: all.
  EntryFilter filter{};
  // Only a meter line whose marker starts the message counts (log_record.h).
  bool anchored = false;
};

// The per-line work of every scan: finds the meter lines in one log line and
// adds them to a Fleet. One per thread.
//
// A line that does not parse is skipped, and the scan reads on from the next
// meter line's marker in the same log line (writers interleaved: a line cut
// by another's whole line), unless anchored. (A JSON string that ends in one
// escaped newline, Docker's json-file, ends the line there: the meter's
// LineReader reads it so.) A line a CRI runtime split into records flagged P
// is joined up to its F record (cri_join.h) and read whole: while a join is
// open (follow() true) the taker must be given every line, marked or not.
// A piece it cannot join (over the line limit, the F never came) and a
// Docker record without its "\n" (Docker's pieces) are dropped, never read cut.
class LineTaker {
 public:
  // `filter`: nullptr or an empty filter sums every entry.
  LineTaker(Fleet& fleet, const std::string& source_field, const EntryFilter* filter = nullptr, bool anchored = false)
      : fleet_(fleet),
        source_field_(source_field),
        filter_(filter != nullptr && !filter->empty() ? filter : nullptr),
        anchored_(anchored) {}
  // What one log line gave: meter lines summed (a line the filter keeps
  // nothing of is not), skipped (`dropped` of them: cut or pieces).
  struct Taken {
    std::uint32_t summed = 0, skipped = 0, dropped = 0;
  };
  // `default_source`: the input's source id (unused with a source field);
  // `where_name`: the input's name (for the no-field source name).
  Taken take(std::string_view line, std::uint32_t default_source, std::string_view where_name);
  // A line past the end of this reader's part of the input (chunk_scan.h):
  // only a join already open takes it; any other line is the next reader's.
  Taken take_past_end(std::string_view line, std::uint32_t default_source, std::string_view where_name);
  // The input's last line, which no '\n' ended (a log still being written,
  // or cut): a meter line in it may be cut short (`2xx=12` read as `2xx=1`),
  // so it is dropped and said, never summed. A CRI record continuing an open
  // join is left to end_of_input(), which drops the join.
  Taken take_unended(std::string_view line);
  // The input ended: the joins still open are dropped.
  Taken end_of_input();
  // Whether a join of a split line's pieces is open, and the flag a block
  // scan follows (BlockScan::follow).
  bool joining() const noexcept { return join_.joining(); }
  const bool* follow() const noexcept { return join_.follow(); }
  // Why the first line skipped by the last take() was (when it skipped one).
  const std::string& reason() const { return reason_; }
  // The hours of every meter line taken that parsed, whether the filter kept any of it.
  const HourSpan& read() const { return read_; }

 private:
  enum class Took { none, summed, skipped };
  Taken offer(std::string_view line, std::uint32_t default_source, std::string_view where_name, bool ours);
  void take_whole(Taken& taken, std::string_view line, std::uint32_t default_source, std::string_view where_name);
  // The line the reader holds: its hour checked, filtered, then summed.
  Took sum_read(std::string_view log_line, std::uint32_t default_source, std::string_view where_name);
  template <class Line>
  Took sum(const Line& read, std::string_view log_line, std::uint32_t default_source, std::string_view where_name);
  void skip(Taken& taken, std::string_view why, bool dropped);

  Fleet& fleet_;
  const std::string& source_field_;
  const EntryFilter* filter_;
  bool anchored_;
  LineReader reader_;
  CriJoin join_{kMaxLine};
  std::tuple<CountLineView, BudgetLineView, AnswersLineView, LanesLineView>
      kept_;  // the filtered line of each kind, reused
  HourSpan read_;
  std::string reason_, hour_reason_;  // the first skip's; a line dated outside the years'
};

class Scanner {
 public:
  Scanner(Fleet& fleet, ScanOptions options) : fleet_(fleet), options_(std::move(options)) {}

  // Every input in order ("-" = stdin). Throws ReportError when one cannot be opened or read.
  void scan_inputs(const std::vector<std::string>& paths);

  // One log line from `source_name` (for callers that hold lines in memory).
  void scan_line_from(std::string_view line, std::string_view source_name);

  const ScanStats& stats() const { return stats_; }

 private:
  void take(std::string_view line, std::uint32_t default_source, const std::string& where_name,
            const std::function<std::uint64_t()>& where_line);
  void take_unended(std::string_view line, const std::string& where_name,
                    const std::function<std::uint64_t()>& where_line);
  void dropped_over_limit(const std::string& where_name, std::uint64_t line_no);
  void count(const LineTaker::Taken& taken, const std::string& where_name,
             const std::function<std::uint64_t()>& where_line);

  Fleet& fleet_;
  ScanOptions options_;
  LineTaker taker_{fleet_, options_.source_field, &options_.filter, options_.anchored};
  ScanStats stats_;
  std::uint64_t memory_lines_ = 0;
  std::uint64_t join_line_ = 0;  // the line of the open join's first piece
};

// "file:line: reason", as the skipped-line summary lists them.
std::string skip_reason(std::string_view where_name, std::uint64_t line_no, std::string_view reason);
// Why a meter line over the line limit was not read.
std::string over_limit_reason();

// The string value at `key` of the JSON object in a log line (from its first
// '{', so a `kubectl logs --prefix` prefix is skipped): the top-level key of
// that name; else, when `key` has dots, the path they split it into
// (`kubernetes.pod_name`: key `pod_name` of the object at `kubernetes`). So
// a top-level key that holds dots itself (a flattened record) is found
// first, and a nested key of the same name as a plain `key` never counts.
// nullopt when there is no valid object, no such key, or the value is not a
// string.
std::optional<std::string> json_string_field(std::string_view record, std::string_view key);

}  // namespace forgemeter::report
