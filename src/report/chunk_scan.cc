#include "report/chunk_scan.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "report/file_input.h"
#include "report/log_record.h"

namespace forgemeter::report {

namespace {

// Pieces are at most this large: each holds its own sums until it is folded.
constexpr std::uint64_t kPieceMax = std::uint64_t{32} << 20;

// Bytes [begin, end) of the file: the piece reads the lines that START there.
struct Piece {
  std::uint64_t begin;
  std::uint64_t end;  // the file's size for the last piece, which reads on to the end
  bool last;
};

// Why a line was skipped: `event` the offset in the file where it was seen
// (the reasons are listed in this order, as one thread reading the file sees
// them), `line` the offset of the line the reason names (the first piece of
// a split line whose F never came, seen at the end of the input).
struct Reason {
  std::uint64_t event, line;
  std::string why;
};

struct PieceResult {
  Fleet fleet;
  std::uint64_t lines = 0, skipped = 0, dropped = 0;
  std::vector<Reason> reasons;
  std::uint64_t bytes = 0;  // the last piece: where the file ended
  HourSpan read;
  std::exception_ptr error;
};

std::vector<Piece> split(std::uint64_t size, std::uint64_t nominal) {
  std::vector<Piece> pieces;
  for (std::uint64_t at = 0; at < size || pieces.empty(); at += nominal)
    pieces.push_back(Piece{at, std::min(size, at + nominal), at + nominal >= size});
  return pieces;
}

void read_piece(const Piece& piece, const LogReader::PlainFile& file, const ChunkOptions& o, const std::string& name,
                std::vector<char>& buffer, PieceResult& r) {
  const std::uint32_t source = o.source_field.empty() ? r.fleet.source(name) : 0;
  LineTaker taker(r.fleet, o.source_field, o.filter, o.anchored);
  // From the byte before the piece, dropping through the first '\n': what
  // remains starts a line (the line running into the piece is the previous piece's).
  const std::uint64_t from = piece.begin == 0 ? 0 : piece.begin - 1;
  BlockScan scan{.skip_partial_first = piece.begin != 0, .follow = taker.follow()};
  if (!piece.last) scan.stop = piece.end - from;
  PreadSource bytes(name, file.fd, from, file.size);
  std::uint64_t join_offset = 0;  // where the open join's first piece is
  bool past_end = false;          // the scan went past stop following a join
  auto count = [&](const LineTaker::Taken& taken, std::uint64_t event, std::uint64_t line) {
    r.lines += taken.summed;
    r.skipped += taken.skipped;
    r.dropped += taken.dropped;
    if (taken.skipped > 0 && r.reasons.size() < kFirstReasons) r.reasons.push_back({event, line, taker.reason()});
  };
  const std::uint64_t read = scan_blocks(
      bytes, o.marker, scan, buffer,
      [&](std::string_view line, std::uint64_t offset) {
        // Past stop, once a join was open there, only a split line's pieces are read (scan.follow): any
        // other line is the next piece's. (The piece's own last line may go on past stop: resynchronised
        // on a marker after a junk prefix over the line limit.)
        past_end = past_end || (offset >= scan.stop && taker.joining());
        if (past_end) return count(taker.take_past_end(line, source, name), from + offset, from + offset);
        const bool joining = taker.joining();
        count(taker.take(line, source, name), from + offset, from + offset);
        if (!joining && taker.joining()) join_offset = from + offset;
      },
      {},
      [&](std::uint64_t offset, std::string_view head) {
        if (meter_marker(head) != 0) return;  // not a meter line
        ++r.skipped;
        ++r.dropped;
        if (r.reasons.size() < kFirstReasons) r.reasons.push_back({from + offset, from + offset, over_limit_reason()});
      },
      [&](std::string_view line, std::uint64_t offset) {
        count(taker.take_unended(line), from + offset, from + offset);
      });
  count(taker.end_of_input(), file.size, join_offset);
  if (piece.last) r.bytes = from + read;
  r.read = taker.read();
}

// The pieces, who reads which next, and which are done.
class Work {
 public:
  Work(std::vector<Piece> pieces, const LogReader::PlainFile& file, const ChunkOptions& o, const std::string& name)
      : pieces_(std::move(pieces)),
        results_(pieces_.size()),
        done_(pieces_.size(), false),
        file_(file),
        options_(o),
        name_(name) {
    for (auto& r : results_) r = std::make_unique<PieceResult>();
  }
  std::size_t size() const { return pieces_.size(); }
  const Piece& piece(std::size_t i) const { return pieces_[i]; }

  // Reads the next unclaimed piece through `buffer` (the thread's own);
  // false when none is left. Never throws.
  bool read_one(std::vector<char>& buffer) noexcept {
    std::size_t i;
    {
      std::lock_guard lock(mu_);
      if (next_ == pieces_.size()) return false;
      i = next_++;
    }
    try {
      read_piece(pieces_[i], file_, options_, name_, buffer, *results_[i]);
    } catch (...) {
      results_[i]->error = std::current_exception();
    }
    {
      std::lock_guard lock(mu_);
      done_[i] = true;
    }
    cv_.notify_all();
    return true;
  }
  void work() noexcept {
    std::vector<char> buffer;
    while (read_one(buffer)) {
    }
  }
  bool done(std::size_t i) {
    std::lock_guard lock(mu_);
    return done_[i];
  }
  void wait_done(std::size_t i) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return done_[i]; });
  }
  // Piece i's result, handed over once (it is done).
  std::unique_ptr<PieceResult> take(std::size_t i) { return std::move(results_[i]); }

 private:
  std::vector<Piece> pieces_;
  std::vector<std::unique_ptr<PieceResult>> results_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::size_t next_ = 0;
  std::vector<bool> done_;
  const LogReader::PlainFile& file_;
  const ChunkOptions& options_;
  const std::string& name_;
};

// Joins the workers on every way out of scan_in_chunks().
struct Pool {
  std::vector<std::thread> threads;
  ~Pool() {
    for (auto& t : threads) t.join();
  }
};

// The first reasons, in the order one thread reading the file sees them (a
// piece reads a split line's pieces past its end: its reasons and the next
// piece's interleave), each with its line's number.
void add_reasons(std::vector<Reason> reasons, const std::string& name, int fd, ScanStats& stats) {
  std::stable_sort(reasons.begin(), reasons.end(), [](const Reason& a, const Reason& b) { return a.event < b.event; });
  reasons.resize(std::min(reasons.size(), kFirstReasons - std::min(kFirstReasons, stats.reasons.size())));
  std::vector<std::size_t> by_line(reasons.size());
  for (std::size_t i = 0; i < by_line.size(); ++i) by_line[i] = i;
  std::sort(by_line.begin(), by_line.end(),
            [&](std::size_t a, std::size_t b) { return reasons[a].line < reasons[b].line; });
  LineCounter counter(name, fd);  // asked in the lines' order: it reads forward only
  std::vector<std::uint64_t> numbers(reasons.size());
  for (std::size_t i : by_line) numbers[i] = counter.lines_before(reasons[i].line) + 1;
  for (std::size_t i = 0; i < reasons.size(); ++i)
    stats.reasons.push_back(skip_reason(name, numbers[i], reasons[i].why));
}

}  // namespace

void scan_in_chunks(const LogReader::PlainFile& file, const std::string& name, const ChunkOptions& o, Fleet& fleet,
                    ScanStats& stats) {
  const unsigned threads = std::max(1u, o.threads);
  const std::uint64_t nominal =
      o.chunk_bytes != 0
          ? o.chunk_bytes
          : std::clamp<std::uint64_t>(file.size / (std::uint64_t{threads} * 4) + 1, std::uint64_t{1} << 20, kPieceMax);
  Work work(split(file.size, nominal), file, o, name);
  std::vector<char> buffer;
  std::exception_ptr error;
  std::vector<Reason> reasons;  // every piece's first ones
  {
    Pool pool;
    try {
      for (unsigned t = 1; t < threads && t < work.size(); ++t) pool.threads.emplace_back([&work] { work.work(); });
    } catch (const std::system_error&) {
      // fewer threads than asked: the calling thread reads what they would have
    }
    for (std::size_t merged = 0; merged < work.size(); ++merged) {
      while (!work.done(merged))
        if (!work.read_one(buffer)) work.wait_done(merged);
      auto r = work.take(merged);
      if (r->error) {
        if (!error) error = r->error;
        continue;  // keep taking pieces so the workers finish; rethrown below
      }
      if (error) continue;
      fleet.absorb(r->fleet);
      stats.lines += r->lines;
      stats.skipped += r->skipped;
      stats.dropped += r->dropped;
      stats.bytes += r->bytes;
      stats.read.add(r->read);
      try {
        reasons.insert(reasons.end(), std::make_move_iterator(r->reasons.begin()),
                       std::make_move_iterator(r->reasons.end()));
      } catch (...) {
        if (!error) error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
  add_reasons(std::move(reasons), name, file.fd, stats);
}

}  // namespace forgemeter::report
