#include "cli/lease/duration_arg.h"

#include <fmt/format.h>

#include "cli/errors.h"
#include "core/duration_text.h"

namespace forgemeter::cli {

Duration duration_arg(std::string_view text, std::string_view option, Duration min, Duration max) {
  using core_detail::duration_text;
  const auto d = core_detail::parse_duration(text);
  if (!d || *d < min || *d > max)
    throw UsageError(
        fmt::format("{} wants a duration from {} to {} written like 90s, 1m30s, 1.5s, 250ms or 1h "
                    "(got '{}')",
                    option, duration_text(min), duration_text(max), text));
  return *d;
}

}  // namespace forgemeter::cli
