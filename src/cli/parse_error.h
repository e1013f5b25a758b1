// parse_error.h — a parse error of the command line said in the user's
// terms where CLI11's own text is the parser's ("--html: 1 required TEXT
// missing" becomes "--html needs a value (FILE)").
#pragma once

#include <optional>
#include <string>

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace forgemeter::cli {

// After a failed parse of `root`: an option given without its value, named
// with what it takes (its option text, else its type name), or nullopt for
// any other error. Quotes the user's text as given: the caller escapes.
std::optional<std::string> missing_value_message(const CLI::App& root, const CLI::ParseError& e);

}  // namespace forgemeter::cli
