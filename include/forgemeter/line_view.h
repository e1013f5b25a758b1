// forgemeter/line_view.h — reading meter lines in place, for log tools.
//
// The same grammar and the same answers as scan_line() (forgemeter/lines.h),
// without copies: a LineView is a MeterLine whose hosts and lanes are views
// into the scanned text (or into the reader's own buffer when the line had
// JSON escapes), and its entry vectors are reused from one line to the next,
// so reading a line allocates nothing once the vectors have grown. One parser
// fills both: scan_line() reads into owning text, the reader into views.
//
//   forgemeter::LineReader reader;
//   for (std::string_view log_line : lines)
//     if (reader.scan(log_line) == forgemeter::LineScan::Kind::line) use(reader.line());
//
// Thread-safety: one LineReader per thread. Errors: scan() never throws
// except std::bad_alloc; a malformed line is a value with a reason.
#pragma once

#include "forgemeter/export.h"

#include <string>
#include <string_view>
#include <tuple>

#include "forgemeter/lines.h"

namespace forgemeter {

// The types of forgemeter/lines.h with views for their text.
using CountEntryView = BasicCountEntry<std::string_view>;
using BudgetEntryView = BasicBudgetEntry<std::string_view>;
using AnswersEntryView = BasicAnswersEntry<std::string_view>;
using LanesEntryView = BasicLanesEntry<std::string_view>;
using CountLineView = BasicCountLine<std::string_view>;
using BudgetLineView = BasicBudgetLine<std::string_view>;
using AnswersLineView = BasicAnswersLine<std::string_view>;
using LanesLineView = BasicLanesLine<std::string_view>;
using LineView = BasicMeterLine<std::string_view>;

class FORGEMETER_API LineReader {
 public:
  // Finds and reads a meter line in one log line, like scan_line(): `none`,
  // `line` (then line() holds it) or `malformed` (then reason() says why).
  LineScan::Kind scan(std::string_view log_line);

  // Valid until the next scan(), and while the scanned text lives.
  const LineView& line() const { return line_; }
  const std::string& reason() const { return reason_; }

 private:
  LineView line_;
  std::tuple<CountLineView, BudgetLineView, AnswersLineView, LanesLineView>
      idle_;             // the other kinds' vectors, kept for reuse
  std::string decoded_;  // the line with its JSON escapes undone, when it had any
  std::string reason_;
};

}  // namespace forgemeter
