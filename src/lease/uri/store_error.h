// store_error.h — how the lease store given to a command is refused.
//
// The message is one line that says what to do, with no password in it
// (secrets.h). `kind` tells a command line that names no usable store
// (not_given: nothing was tried; a command exits 2) from a store, its file or
// its server that refuses (refused: a command exits 1).
#pragma once

#include <stdexcept>
#include <string>

namespace forgemeter::lease_uri {

struct StoreError : std::runtime_error {
  enum class Kind { not_given, refused };
  StoreError(Kind k, const std::string& what) : std::runtime_error(what), kind(k) {}
  Kind kind;
};

}  // namespace forgemeter::lease_uri
