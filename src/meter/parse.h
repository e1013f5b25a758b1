// The grammar of the four lines, read back (the inverse of format_line()).
#pragma once

#include <string>
#include <string_view>
#include <tuple>

#include "forgemeter/lines.h"

namespace forgemeter::meter {

// Whether `text` starts with the opening words of a meter line, up to their
// colon: `forge HTTP:` (the count line), `forge rate limit:`, or `forge HTTP
// <word>:` (`answers`, `lanes`). Text past those words that does not parse
// is a malformed line, not "no line": `forge HTTP: -5 requests`, `forge
// HTTP: 5 request in …` are reported, never passed over in silence.
bool starts_meter_line(std::string_view text) noexcept;

// One line of each kind, for a reader to keep the vectors of the kinds it is
// not reading now.
template <class Text>
using IdleLines = std::tuple<BasicCountLine<Text>, BasicBudgetLine<Text>, BasicAnswersLine<Text>, BasicLanesLine<Text>>;

// Parses `text`, which starts_meter_line() and holds the whole line (no
// escapes, no trailing text) into `line` (Text = std::string_view: views into
// `text`): true, or false with `reason` set (then `line` is unspecified).
// When `line` already holds a line of the same kind its entry vector is
// reused; with `idle`, so is the vector each other kind last had (the one
// `line` held waits there), so a reader reusing `line` allocates nothing once
// each vector has grown. Throws only std::bad_alloc.
template <class Text>
bool parse_meter_line(std::string_view text, BasicMeterLine<Text>& line, std::string& reason,
                      IdleLines<Text>* idle = nullptr);

extern template bool parse_meter_line(std::string_view, MeterLine&, std::string&, IdleLines<std::string>*);
extern template bool parse_meter_line(std::string_view, BasicMeterLine<std::string_view>&, std::string&,
                                      IdleLines<std::string_view>*);

}  // namespace forgemeter::meter
