// passwords.h — what in a store's text is, or might be, a password.
//
// A PostgreSQL store may carry one: `password=…` in a conninfo (quoted or
// not), `user:pass@` or `?password=…` in a postgresql:// URI (an etcd:// URI
// the same `user:pass@`). store_passwords() finds it the way libpq reads it
// and, so that a text libpq cannot parse leaks nothing through libpq's own
// error message (which quotes the fragment it choked on), also every raw
// fragment that might be part of one.
//
// Thread-safety: a pure function (libpq's keyword list is read once).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace forgemeter::lease_uri {

// What might be a password in `store` (empty when it carries none): the
// value libpq would use, its raw spelling (percent-escaped, quoted), and for
// a text libpq rejects every token after `password=` up to the next `key=`.
std::vector<std::string> store_passwords(std::string_view store);

}  // namespace forgemeter::lease_uri
