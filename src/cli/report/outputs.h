// outputs.h — the report's outputs checked before anything is read or
// written: no output is one of the inputs, and no file is overwritten that a
// report did not write.
//
// Errors: UsageError (exit 2) saying what to do.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace forgemeter::cli {

// The first bytes of every page `forgemeter report --html` writes hold this
// (its <title>, in every version): a file that does may be written over.
inline constexpr std::string_view kPageMark = "<title>forgemeter fleet report</title>";
inline constexpr std::size_t kPageMarkWithin = 512;  // bytes

// `option` (e.g. "--html") writes `path`. Refused when the file is one of
// `inputs` ("-": stdin) by device and inode (the same file, a hard or a
// symbolic link to it), and, unless `force`, when it exists as a regular file
// that is neither empty nor a page a report wrote (kPageMark in its first
// kPageMarkWithin bytes). An absent path, or one that is not a regular file
// (/dev/null, a pipe), passes.
void check_output_file(const std::string& option, const std::string& path, const std::vector<std::string>& inputs,
                       bool force);

// Stdout, when it is a regular file, is not one of `inputs` (`report web.log
// >> web.log` would read what it writes).
void check_stdout_output(const std::vector<std::string>& inputs);

}  // namespace forgemeter::cli
