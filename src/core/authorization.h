// authorization.h — the token an `Authorization` value carries under the
// `token` or `Bearer` scheme (GitHub takes both, any case), read alike by the
// proxy (which token a request spends) and the loopback forge (which token
// authenticates it).
// Thread-safety: a pure function. Errors: none.
#pragma once

#include <optional>
#include <string_view>

namespace forgemeter::core_detail {

// The token of an `Authorization: token X` or `Bearer X` value (the scheme
// in any case, spaces around X dropped), or nullopt.
std::optional<std::string_view> authorization_token(std::string_view authorization);

}  // namespace forgemeter::core_detail
