// secrets.h — passwords never printed: every line `lease run` and `lease
// status` print (and every error the command says) goes through scrub().
//
// The rule, so that the masking never reveals what it hides:
//  1. Store forms. Wherever a text holds a store in a form libpq reads, the
//     password's value becomes `***`, whatever its length and whether or not
//     it was remembered: `password=VALUE` as a conninfo has it (bare, or
//     '…' quoted with backslash escapes; spaces around `=` allowed),
//     `?password=VALUE` / `&password=VALUE` of a URI (to the next `&`), and
//     the `user:PASS@` of any `scheme://` (to the last `@` before a space,
//     `?` or `#`: a password may hold `@` or `/`).
//  2. Quoted fragments. A remembered secret (passwords.h: its value, raw
//     spelling and the fragments of a text libpq rejects) that is the whole
//     of a "…" or '…' quoted string becomes `***`, whatever its length:
//     libpq's errors quote the token they choke on (`missing "=" after "x"`).
//  3. Words. A remembered secret of at least kMinBareSecret bytes that stands
//     as a whole word (no letter, digit or non-ASCII byte just before or
//     after it) becomes `***`.
// Nothing else is replaced: not a secret inside a longer word (password
// `meter` leaves `forgemeter` alone), and not a short secret in free text,
// where the text around `***` would give it away (password `e` once turned
// `forgemeter` into `forg***m***t***r`) and which is likely an ordinary word.
//
// Thread-safety: remember_secrets() and scrub() may be called from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace forgemeter::lease_uri {

// The shortest remembered secret replaced as a bare word (rule 3).
inline constexpr std::size_t kMinBareSecret = 6;

// Remembers the passwords `text` carries (store_passwords) for scrub().
void remember_secrets(std::string_view text);

// `text` with its store forms' passwords and the remembered secrets masked
// as `***` (the rule above; longest secret first).
std::string scrub(std::string_view text);

// Overwrites the NUL-terminated `arg` — a word of this process's argv,
// which `ps` and /proc/<pid>/cmdline show to every user — with scrub(arg),
// in place: NUL-padded when shorter, all `*` when the mask would not fit.
// True when anything was masked. Call once the arguments are parsed (the
// parser keeps copies); a fork made afterwards (the sentinel) shows the same.
bool scrub_in_place(char* arg);

// Forgets every remembered secret (a test's isolation).
void forget_secrets();

}  // namespace forgemeter::lease_uri
