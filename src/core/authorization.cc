#include "core/authorization.h"

#include "core/ascii.h"

namespace forgemeter::core_detail {

std::optional<std::string_view> authorization_token(std::string_view authorization) {
  const std::string_view v = trimmed(authorization);
  for (std::string_view scheme : {"token ", "bearer "})
    if (istarts_with(v, scheme)) {
      const std::string_view token = trimmed(v.substr(scheme.size()));
      if (!token.empty()) return token;
    }
  return std::nullopt;
}

}  // namespace forgemeter::core_detail
