// terminal_text.h — text from input (a log, a store, a forge, a caller) as a
// terminal may show it: no byte that a terminal acts on gets through.
//
// C0 control bytes, DEL, the C1 controls as UTF-8 (U+0080–U+009F) and the
// line and paragraph separators (U+2028, U+2029: line breaks to some log
// readers) are written as \xNN (each byte); a backslash stays a backslash, so
// escaping twice changes nothing. Everything else, valid UTF-8 or not, passes
// unchanged (a terminal shows a broken sequence as a replacement character,
// it does not act on it). The one rule for printing anyone's bytes: a
// forge's, a store's, a log's, a caller's.
// Thread-safety: pure functions. Errors: none (but std::bad_alloc).
#pragma once

#include "forgemeter/export.h"

#include <string>
#include <string_view>

namespace forgemeter::core_detail {

FORGEMETER_API std::string terminal_text(std::string_view text);

// The same for at most `max_bytes` of `text`: cut before a UTF-8 character
// that would pass the bound (never inside one), and then ending in "…" to say
// it was cut. For text that may be a screenful (a body, a server's message).
FORGEMETER_API std::string terminal_text(std::string_view text, std::size_t max_bytes);

// For a name that is ASCII by rule (a lane, a header name): every byte
// outside printable ASCII as \xNN, so a lone 0x9B (C1's CSI to an 8-bit
// terminal) or 0xFF is shown, not passed on.
FORGEMETER_API std::string ascii_text(std::string_view text);

// Whether `text` has a byte terminal_text() would escape.
FORGEMETER_API bool has_control_bytes(std::string_view text) noexcept;

}  // namespace forgemeter::core_detail
