// The grammar of the three lines, read back (the inverse of format_line()).
#pragma once

#include <string_view>

#include "forgemeter/line_view.h"

namespace forgemeter::meter {

// Whether `text` starts with the opening words of a meter line: the count line
// `forge HTTP: <digits> requests`, the budget line `forge rate limit: lowest
// remaining`, the answers line `forge HTTP answers: in the hour`. Text past
// those words that does not parse is a malformed line, not "no line".
bool starts_meter_line(std::string_view text) noexcept;

// Parses `text`, which starts_meter_line() and holds the whole line (no
// escapes, no trailing text) into `line` (views into `text`, the vectors
// reused): true, or false with `reason` set (then `line` is unspecified).
// Throws only std::bad_alloc.
bool parse_meter_line(std::string_view text, LineView& line, std::string& reason);

}  // namespace forgemeter::meter
