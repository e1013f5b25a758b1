// man_section.h — one command's section of the man page, in roff, made from
// the parser itself: the texts `--help` prints, laid out for roff to fill at
// the reader's width (the description as a paragraph, each option a tagged
// paragraph) where --help's fixed columns would run past 80. Hyphens are
// roff's \- (copied from the page, an option stays an option), a backslash
// is \e, a line never begins with a control character.
// `forgemeter __man COMMAND [SUBCOMMAND]` prints it for cmake/man_page.cmake.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace forgemeter::cli {

// The section (".SS forgemeter report" and what follows) of the command at
// `path` under `root`, or nullopt when there is no such command.
std::optional<std::string> man_section(CLI::App& root, const std::vector<std::string>& path);

}  // namespace forgemeter::cli
