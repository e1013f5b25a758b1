// etag.h — curl's --etag-compare FILE and --etag-save FILE for
// `forgemeter fetch` (one URL, as curl's), so a script run again asks the
// forge "changed since?" and a 304 costs nothing on GitHub.
//
//   --etag-compare FILE  sends `If-None-Match: <the file's first line>`
//                        (blanks and a CR trimmed); an empty file, or a
//                        missing one (with a warning), sends `""`, as curl.
//   --etag-save FILE     created before anything is sent (its content kept);
//                        a 2xx or 3xx final answer's ETag replaces it, one
//                        line; no ETag, another status or no answer leave it
//                        as it was (so both options may name one file).
//
// Unlike curl, neither passes on what is not an entity-tag (RFC 9110:
// [W/]"…" of printable ASCII, no space, at most kMaxEtag bytes): a forge's
// such ETag is not saved (a warning, escaped, says so), a file's is a usage
// error, nothing sent. No CR, LF, NUL or control byte is ever written to the
// file or sent back.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "forgemeter/transport.h"

namespace forgemeter::cli {

inline constexpr std::size_t kMaxEtag = 4096;

bool is_entity_tag(std::string_view text) noexcept;

// The header --etag-compare FILE adds. `warning` gets a line for stderr when
// the file could not be read; UsageError when its line is no entity-tag.
Header etag_compare_header(const std::string& path, std::string& warning);

// --etag-save FILE ("-": stdout).
class EtagSave {
 public:
  explicit EtagSave(std::string path);
  ~EtagSave();
  EtagSave(const EtagSave&) = delete;
  EtagSave& operator=(const EtagSave&) = delete;

  // Creates the file, keeping what it holds; false when it cannot.
  bool open();
  // After the answer: replaces the file's line with its ETag when there is
  // one to save. Returns a line for stderr ("" when all went well);
  // `write_failed` is set when the file could not be written.
  std::string save(const Response& res, bool& write_failed);
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
};

}  // namespace forgemeter::cli
