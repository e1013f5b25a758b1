// forgemeter/line_view.h — reading meter lines in place, for log tools.
//
// The same grammar and the same answers as scan_line() (forgemeter/lines.h),
// without copies: hosts and lanes are views into the scanned text (or into
// the reader's own buffer when the line had JSON escapes), and the entry
// vectors are reused from one line to the next, so reading a line allocates
// nothing once the vectors have grown. scan_line() is this reader plus a copy
// into owning values: there is one parser.
//
//   forgemeter::LineReader reader;
//   for (std::string_view log_line : lines)
//     if (reader.scan(log_line) == forgemeter::LineScan::Kind::line) use(reader.line());
//
// Thread-safety: one LineReader per thread. Errors: scan() never throws
// except std::bad_alloc; a malformed line is a value with a reason.
#pragma once

#include "forgemeter/export.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "forgemeter/lines.h"

namespace forgemeter {

// The entries of forgemeter/lines.h with views for their text.
using CountEntryView = BasicCountEntry<std::string_view>;
using BudgetEntryView = BasicBudgetEntry<std::string_view>;
using AnswersEntryView = BasicAnswersEntry<std::string_view>;

// One line as read. Only the vector of the line's kind is filled; the views
// stay valid until the next scan() of the same reader, and while the scanned
// text lives.
struct FORGEMETER_API LineView {
  enum class Kind : std::uint8_t { count, budget, answers };
  Kind kind = Kind::count;
  std::chrono::sys_seconds hour_ending{};
  HourNote note;
  std::uint64_t total = 0;  // count lines: N (the entries' sum)
  std::vector<CountEntryView> counts;
  std::vector<BudgetEntryView> budgets;
  std::vector<AnswersEntryView> answers;
};

// The owning value of a view.
FORGEMETER_API MeterLine to_line(const LineView& view);

class FORGEMETER_API LineReader {
 public:
  // Finds and reads a meter line in one log line, like scan_line(): `none`,
  // `line` (then line() holds it) or `malformed` (then reason() says why).
  LineScan::Kind scan(std::string_view log_line);

  const LineView& line() const { return line_; }
  const std::string& reason() const { return reason_; }

 private:
  LineView line_;
  std::string decoded_;  // the line with its JSON escapes undone, when it had any
  std::string reason_;
};

}  // namespace forgemeter
