// terminal_text.h — text from input (a log, a store, a forge, a caller) as a
// terminal may show it: no byte that a terminal acts on gets through.
//
// C0 control bytes, DEL and the C1 controls as UTF-8 (U+0080–U+009F) are
// written as \xNN (each byte); a backslash stays a backslash. Everything else,
// valid UTF-8 or not, passes unchanged (a terminal shows a broken sequence as
// a replacement character, it does not act on it).
// Thread-safety: a pure function. Errors: none (but std::bad_alloc).
#pragma once

#include <string>
#include <string_view>

namespace forgemeter::core_detail {

std::string terminal_text(std::string_view text);

// For a name that is ASCII by rule (a lane, a header name): every byte
// outside printable ASCII as \xNN, so a lone 0x9B (C1's CSI to an 8-bit
// terminal) or 0xFF is shown, not passed on.
std::string ascii_text(std::string_view text);

// Whether `text` has a byte terminal_text() would escape.
bool has_control_bytes(std::string_view text) noexcept;

}  // namespace forgemeter::core_detail
