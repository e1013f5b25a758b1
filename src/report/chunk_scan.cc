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

struct PieceResult {
  Fleet fleet;
  std::uint64_t lines = 0, skipped = 0, dropped = 0;
  std::vector<std::pair<std::uint64_t, std::string>> reasons;  // (offset in the file of the line, reason)
  std::uint64_t bytes = 0;                                     // the last piece: where the file ended
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
  BlockScan scan{.skip_partial_first = piece.begin != 0};
  if (!piece.last) scan.stop = piece.end - from;
  PreadSource bytes(name, file.fd, from, file.size);
  const std::uint64_t read = scan_blocks(
      bytes, o.marker, scan, buffer,
      [&](std::string_view line, std::uint64_t offset) {
        const LineTaker::Taken taken = taker.take(line, source, name);
        r.lines += taken.summed;
        r.skipped += taken.skipped;
        r.dropped += taken.dropped;
        if (taken.skipped > 0 && r.reasons.size() < kFirstReasons)
          r.reasons.emplace_back(from + offset, taker.reason());
      },
      {},
      [&](std::uint64_t offset, std::string_view head) {
        if (meter_marker(head) != 0) return;  // not a meter line
        ++r.skipped;
        ++r.dropped;
        if (r.reasons.size() < kFirstReasons) r.reasons.emplace_back(from + offset, over_limit_reason());
      });
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

}  // namespace

void scan_in_chunks(const LogReader::PlainFile& file, const std::string& name, const ChunkOptions& o, Fleet& fleet,
                    ScanStats& stats) {
  const unsigned threads = std::max(1u, o.threads);
  const std::uint64_t nominal =
      o.chunk_bytes != 0
          ? o.chunk_bytes
          : std::clamp<std::uint64_t>(file.size / (std::uint64_t{threads} * 4) + 1, std::uint64_t{1} << 20, kPieceMax);
  Work work(split(file.size, nominal), file, o, name);
  LineCounter counter(name, file.fd);  // the first skip reasons' line numbers
  std::vector<char> buffer;
  std::exception_ptr error;
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
      for (const auto& [offset, why] : r->reasons) {
        if (stats.reasons.size() >= kFirstReasons) break;
        try {
          stats.reasons.push_back(skip_reason(name, counter.lines_before(offset) + 1, why));
        } catch (...) {
          if (!error) error = std::current_exception();
        }
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace forgemeter::report
