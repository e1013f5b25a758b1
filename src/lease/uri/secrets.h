// secrets.h — passwords in a store's text: found, and never printed.
//
// scrub() replaces each remembered secret (passwords.h) in a text with `***`;
// every line `lease run` and `lease status` print goes through it.
//
// Thread-safety: remember_secrets() and scrub() may be called from any thread.
#pragma once

#include <string>
#include <string_view>

namespace forgemeter::lease_uri {

// Remembers the passwords `text` carries (store_passwords) for scrub().
void remember_secrets(std::string_view text);

// `text` with every remembered secret replaced by `***` (longest first).
std::string scrub(std::string_view text);

// Forgets every remembered secret (a test's isolation).
void forget_secrets();

}  // namespace forgemeter::lease_uri
