// shown_url.h — a URL as a person may see it, the one rule every output
// that shows a URL (a -v hop, a summary line, an error line, a -w variable)
// follows: the password of a `scheme://user:password@` shown as `***`, and
// control bytes escaped (terminal_text.h).
//
// The authority is read as libcurl reads it: from `://` to the first `/`,
// `?` or `#` (or a space, in a line of text); its userinfo is what comes
// before its last `@`, and the password what follows the userinfo's first
// `:`. The user name stays (it names who, not the secret).
// Thread-safety: pure functions. Errors: none (but std::bad_alloc).
#pragma once

#include "forgemeter/export.h"

#include <string>
#include <string_view>

namespace forgemeter::core_detail {

// `text` — a URL, or a line of text that names URLs (an error message) —
// with every URL's password masked and its control bytes escaped.
FORGEMETER_API std::string shown_url(std::string_view text);

// Whether the URL `url` carries userinfo (`user@` or `user:password@`):
// libcurl sends it as Basic credentials.
FORGEMETER_API bool has_userinfo(std::string_view url) noexcept;

}  // namespace forgemeter::core_detail
