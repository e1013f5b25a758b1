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

// After a failed parse of `root`: what was wrong in the user's words ("unknown
// command 'reprot'; did you mean 'report'?"), or nullopt when the parser's own
// message says it better. Quotes the user's text as given: the caller escapes.
std::optional<std::string> unknown_word_message(const CLI::App& root);

// Shell completion: the candidates for the last of `words` (the words after
// the program's name, the last one being completed, possibly empty), one per
// line (an option's own values, like --format's, after it), or the single
// line `__files__` when a file name is wanted there, or
// `__commands__` after `--` (a command to run).
std::string completion_candidates(const CLI::App& root, const std::vector<std::string>& words);

}  // namespace forgemeter::cli
