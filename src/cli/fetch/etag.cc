#include "cli/fetch/etag.h"

#include <unistd.h>

#include <fstream>

#include <fmt/format.h>

#include "cli/errors.h"
#include "core/ascii.h"
#include "core/terminal_text.h"

namespace forgemeter::cli {

using core_detail::terminal_text;

// At most 80 bytes of a tag shown: enough to recognise, never a screenful.
constexpr std::size_t kShownBytes = 80;

bool is_entity_tag(std::string_view text) noexcept {
  if (text.size() > kMaxEtag) return false;
  if (text.starts_with("W/")) text.remove_prefix(2);
  if (text.size() < 2 || text.front() != '"' || text.back() != '"') return false;
  for (const char c : text.substr(1, text.size() - 2)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x21 || u == '"' || u > 0x7e) return false;  // etagc, without obs-text
  }
  return true;
}

Header etag_compare_header(const std::string& path, std::string& warning) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    warning = fmt::format("forgemeter: warning: cannot read --etag-compare file '{}'; sending If-None-Match: \"\"",
                          terminal_text(path));
    return {"If-None-Match", "\"\""};
  }
  std::string head(kMaxEtag + 2, '\0');  // enough for the longest tag, its CR and LF
  file.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(file.gcount()));
  const std::string_view line = core_detail::trimmed(std::string_view(head).substr(0, head.find('\n')), true);
  if (line.empty()) return {"If-None-Match", "\"\""};
  if (!is_entity_tag(line))
    throw UsageError(
        fmt::format("--etag-compare {}: the first line is not an ETag ([W/]\"…\", printable, at most {} "
                    "bytes): '{}'; nothing sent",
                    terminal_text(path), kMaxEtag, terminal_text(line, kShownBytes)));
  return {"If-None-Match", std::string(line)};
}

EtagSave::EtagSave(std::string path) : path_(std::move(path)) {}

EtagSave::~EtagSave() {
  if (file_ != nullptr && file_ != stdout) std::fclose(file_);
}

bool EtagSave::open() {
  file_ = path_ == "-" ? stdout : std::fopen(path_.c_str(), "ab");
  return file_ != nullptr;
}

std::string EtagSave::save(const Response& res, bool& write_failed) {
  write_failed = false;
  const auto etag = res.header("ETag");
  if (file_ == nullptr || !etag || res.status < 200 || res.status >= 400) return {};
  const std::string_view tag = core_detail::trimmed(*etag, true);
  if (!is_entity_tag(tag))
    return fmt::format("forgemeter: warning: the answer's ETag is not an entity-tag: '{}'; not saved to {}",
                       terminal_text(tag, kShownBytes),
                       path_ == "-" ? std::string("stdout") : "'" + terminal_text(path_) + "'");
  const std::string line = std::string(tag) + "\n";
  const bool ok = (file_ == stdout || ::ftruncate(fileno(file_), 0) == 0) &&
                  std::fwrite(line.data(), 1, line.size(), file_) == line.size() && std::fflush(file_) == 0;
  if (ok) return {};
  write_failed = true;
  return fmt::format("forgemeter: cannot write the ETag to '{}'", terminal_text(path_));
}

}  // namespace forgemeter::cli
