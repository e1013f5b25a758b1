// secrets.h — passwords in a store's text: found, and never printed.
//
// A PostgreSQL store may carry a password: `password=…` in a conninfo
// (quoted or not), `user:pass@` or `?password=…` in a postgresql:// URI.
// store_passwords() finds it the way libpq reads it and, so that a text libpq
// cannot parse leaks nothing through libpq's own error message (which quotes
// the fragment it choked on), also every raw fragment that might be part of
// one. scrub() replaces each remembered secret in a text with `***`; every
// line `lease run` and `lease status` print goes through it.
//
// Thread-safety: remember_secrets() and scrub() may be called from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace forgemeter::cli {

// What might be a password in `store` (empty when it carries none): the
// value libpq would use, its raw spelling, and for a text libpq rejects every
// token after `password=` up to the next `key=`.
std::vector<std::string> store_passwords(std::string_view store);

// Remembers the passwords `text` carries (store_passwords) for scrub().
void remember_secrets(std::string_view text);

// `text` with every remembered secret replaced by `***` (longest first).
std::string scrub(std::string_view text);

}  // namespace forgemeter::cli
