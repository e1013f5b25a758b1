#include "cli/chunk_scan.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "cli/input.h"

namespace forgemeter::cli {

namespace {

// Pieces are at most this large, so the pages mapped at once stay few.
constexpr std::size_t kPieceMax = std::size_t{32} << 20;

struct Piece {
  const char* begin;
  const char* end;  // just after a '\n', or the end of the text
};

struct PieceResult {
  Fleet fleet;
  std::uint64_t lines = 0, skipped = 0;
  std::vector<std::pair<std::uint64_t, std::string>> reasons;  // (1-based line within the piece, reason)
  std::exception_ptr error;
};

std::vector<Piece> split(std::string_view text, std::size_t nominal) {
  std::vector<Piece> pieces;
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char* cut = end;
    if (static_cast<std::size_t>(end - p) > nominal) {
      const void* nl = std::memchr(p + nominal, '\n', static_cast<std::size_t>(end - (p + nominal)));
      if (nl != nullptr) cut = static_cast<const char*>(nl) + 1;
    }
    pieces.push_back(Piece{p, cut});
    p = cut;
  }
  return pieces;
}

void read_piece(const Piece& piece, const ChunkOptions& o, const std::string& name, PieceResult& r) {
  const std::uint32_t source = o.source_field.empty() ? r.fleet.source(name) : 0;
  LineTaker taker(r.fleet, o.source_field);
  const char* counted = piece.begin;
  std::uint64_t lines_before = 0;
  for_each_marked_line(piece.begin, piece.end, o.marker, [&](std::string_view line) {
    switch (taker.take(line, source, name)) {
      case LineTaker::Took::none: return;
      case LineTaker::Took::summed: ++r.lines; return;
      case LineTaker::Took::skipped:
        ++r.skipped;
        if (r.reasons.size() < kFirstReasons) {
          lines_before += count_newlines(counted, line.data());
          counted = line.data();
          r.reasons.emplace_back(lines_before + 1, taker.reason());
        }
        return;
    }
  });
}

// The pieces, who reads which next, and which are done.
class Work {
 public:
  Work(std::vector<Piece> pieces, const ChunkOptions& o, const std::string& name)
      : pieces_(std::move(pieces)), results_(pieces_.size()), done_(pieces_.size(), false), options_(o), name_(name) {
    for (auto& r : results_) r = std::make_unique<PieceResult>();
  }
  std::size_t size() const { return pieces_.size(); }
  const Piece& piece(std::size_t i) const { return pieces_[i]; }

  // Reads the next unclaimed piece; false when none is left. Never throws.
  bool read_one() noexcept {
    std::size_t i;
    {
      std::lock_guard lock(mu_);
      if (next_ == pieces_.size()) return false;
      i = next_++;
    }
    try {
      read_piece(pieces_[i], options_, name_, *results_[i]);
    } catch (...) {
      results_[i]->error = std::current_exception();
    }
    release_mapped(pieces_[i].begin, pieces_[i].end);
    {
      std::lock_guard lock(mu_);
      done_[i] = true;
    }
    cv_.notify_all();
    return true;
  }
  void work() noexcept {
    while (read_one()) {
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

void scan_in_chunks(std::string_view text, const std::string& name, const ChunkOptions& o, Fleet& fleet,
                    ScanStats& stats) {
  const unsigned threads = std::max(1u, o.threads);
  const std::size_t nominal =
      o.chunk_bytes != 0 ? o.chunk_bytes : std::clamp<std::size_t>(text.size() / (threads * 4) + 1, 1 << 20, kPieceMax);
  Work work(split(text, nominal), o, name);
  const char* counted = text.data();  // the first skip reasons' line numbers: '\n's counted before this
  std::uint64_t lines_before = 0;
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
        if (!work.read_one()) work.wait_done(merged);
      auto r = work.take(merged);
      if (r->error) {
        if (!error) error = r->error;
        continue;  // keep taking pieces so the workers finish; rethrown below
      }
      if (error) continue;
      fleet.absorb(r->fleet);
      stats.lines += r->lines;
      stats.skipped += r->skipped;
      for (const auto& [line, why] : r->reasons) {
        if (stats.reasons.size() >= kFirstReasons) break;
        lines_before += count_newlines(counted, work.piece(merged).begin);
        counted = work.piece(merged).begin;
        stats.reasons.push_back(skip_reason(name, lines_before + line, why));
      }
    }
  }
  if (error) std::rethrow_exception(error);
  stats.bytes += text.size();
}

}  // namespace forgemeter::cli
