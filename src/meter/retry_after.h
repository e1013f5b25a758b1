// retry_after.h — the wait a Retry-After field asks for (RFC 9110 §10.2.3).
// Thread-safety: a pure function. Errors: none.
#pragma once

// FORGEMETER_API here: exported for forgemeter's other components (the
// transport's admission), not API.
#include "forgemeter/export.h"

#include <chrono>
#include <optional>
#include <string_view>

#include "forgemeter/clock.h"

namespace forgemeter::meter {

// The wait `value` asks for at wall time `now`: delay-seconds (any number of
// digits, capped at 2^40 s, which keeps the arithmetic in range), or an IMF-fixdate
// (parse_http_date, reading.h) that is not in the past; nullopt when the
// value is absent or neither.
FORGEMETER_API std::optional<std::chrono::seconds> retry_after_wait(std::string_view value, UtcMillis now) noexcept;

}  // namespace forgemeter::meter
