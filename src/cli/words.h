// words.h — the words the command line accepts, read from the parser itself:
// a suggestion for a mistyped command or option, and the candidates for
// shell completion. Both walk the same CLI::App tree that --help prints, so
// neither can drift from it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace forgemeter::cli {

// The closest of `candidates` to `word` (a typo: at most a third of its
// length in edits, transpositions counting one), or nullopt.
std::optional<std::string> closest(std::string_view word, const std::vector<std::string>& candidates);

// What was wrong with a word of the command line, in the user's words
// ("unknown command 'reprot'"), and the word the parser knows nearest to
// it ("report"), when one is near enough to suggest.
struct WordError {
  std::string what;
  std::optional<std::string> suggestion;
  // what, then "; did you mean 'SUGGESTION'?" when there is one.
  std::string text() const;
};

// After a failed parse of `root`: the unknown (or missing) word, or nullopt
// when the parser's own message says it better. Quotes the user's text as
// given: the caller escapes.
std::optional<WordError> unknown_word(const CLI::App& root);

// The command the parser reached, as typed: "forgemeter lease run".
std::string reached_command(const CLI::App& root);

// Shell completion: the candidates for the last of `words` (the words after
// the program's name, the last one being completed, possibly empty), one per
// line (an option's own values, like --format's, after it), or the single
// line `__files__` when a file name is wanted there, or
// `__commands__` after `--` (a command to run).
std::string completion_candidates(const CLI::App& root, const std::vector<std::string>& words);

}  // namespace forgemeter::cli
