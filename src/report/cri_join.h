// cri_join.h — a line a CRI runtime split back in one piece: the records of
// one stream flagged P, up to that stream's next record flagged F, joined
// into one record (the first piece's prefix, flagged F, then every piece's
// text). Each stream (stdout, stderr) joins on its own, so the other's
// records may come between. A join whose input, from its first piece to its
// F, would pass the line limit is given up (its line is dropped, never read
// cut); so is one the input ends inside (the F never came).
//
// Thread-safety: one per reader. Errors: none but std::bad_alloc.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace forgemeter::report {

class CriJoin {
 public:
  explicit CriJoin(std::size_t max_line) : max_line_(max_line) {}

  enum class Step {
    pass,    // not a piece of a join: read the line as it is
    held,    // a piece, kept (or one of a join given up)
    joined,  // the line is whole: text()
  };
  struct Offer {
    Step step = Step::pass;
    int given_up = 0;  // joins given up at this line (over the line limit)
  };
  // One log line of the input, in order. `may_start`: a P record may open a
  // join (false for lines that are another reader's to start).
  Offer offer(std::string_view line, bool may_start = true);
  // The last joined line (valid until the next offer).
  std::string_view text() const noexcept { return text_; }

  // Whether a join is open: every line must then be offered, marked or not.
  bool joining() const noexcept { return joining_; }
  const bool* follow() const noexcept { return &joining_; }
  // The input ended: the joins still open, given up.
  int end() noexcept;

 private:
  struct Join {
    bool open = false;
    std::string text;
    std::size_t seen = 0;  // bytes of input since its first piece
  };
  void close(Join& j) noexcept;

  std::size_t max_line_;
  std::array<Join, 2> joins_;  // stdout, stderr
  std::string text_;
  bool joining_ = false;
};

}  // namespace forgemeter::report
