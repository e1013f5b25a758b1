#include "cli/scan.h"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "cli/chunk_scan.h"
#include "cli/errors.h"
#include "cli/input.h"

namespace forgemeter::cli {

namespace {

constexpr std::string_view kMarker = "forge ";  // every meter line's first word, in text and JSON alike

void append_utf8(std::string& out, unsigned cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

std::optional<std::string> json_string_field(std::string_view record, std::string_view key) {
  std::string quoted = fmt::format("\"{}\"", key);
  for (std::size_t at = record.find(quoted); at != std::string_view::npos; at = record.find(quoted, at + 1)) {
    std::size_t p = at + quoted.size();
    while (p < record.size() && (record[p] == ' ' || record[p] == '\t')) ++p;
    if (p >= record.size() || record[p] != ':') continue;  // a value that looks like the key
    ++p;
    while (p < record.size() && (record[p] == ' ' || record[p] == '\t')) ++p;
    if (p >= record.size() || record[p] != '"') return std::nullopt;  // not a string value
    std::string value;
    for (++p; p < record.size(); ++p) {
      char c = record[p];
      if (c == '"') return value;
      if (c != '\\') {
        value += c;
        continue;
      }
      if (++p >= record.size()) break;
      switch (record[p]) {
        case 'n': value += '\n'; break;
        case 't': value += '\t'; break;
        case 'r': value += '\r'; break;
        case 'b': value += '\b'; break;
        case 'f': value += '\f'; break;
        case 'u': {
          unsigned cp = 0;
          if (p + 4 >= record.size()) return std::nullopt;
          for (int i = 1; i <= 4; ++i) {
            char h = record[p + i];
            cp = cp * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(h)) ? h - '0'
                                                                                           : (std::tolower(h) - 'a' + 10));
          }
          append_utf8(value, cp);
          p += 4;
          break;
        }
        default: value += record[p];
      }
    }
    return std::nullopt;  // unterminated
  }
  return std::nullopt;
}

LineTaker::Took LineTaker::take(std::string_view line, std::uint32_t default_source, std::string_view where_name) {
  const auto kind = reader_.scan(line);
  if (kind == LineScan::Kind::none) return Took::none;
  if (kind == LineScan::Kind::malformed) return Took::skipped;
  std::uint32_t source = default_source;
  if (!source_field_.empty()) {
    auto name = json_string_field(line, source_field_);
    source = fleet_.source(name ? *name : fmt::format("{} (no \"{}\")", where_name, source_field_));
  }
  fleet_.add(source, reader_.line());
  return Took::summed;
}

std::string skip_reason(std::string_view where_name, std::uint64_t line_no, std::string_view reason) {
  return fmt::format("{}:{}: {}", where_name, line_no, reason);
}

void Scanner::take(std::string_view line, std::uint32_t default_source, const std::string& where_name,
                   const std::function<std::uint64_t()>& where_line) {
  switch (taker_.take(line, default_source, where_name)) {
    case LineTaker::Took::none: return;
    case LineTaker::Took::summed: ++stats_.lines; return;
    case LineTaker::Took::skipped:
      ++stats_.skipped;
      if (stats_.reasons.size() < kFirstReasons) stats_.reasons.push_back(skip_reason(where_name, where_line(), taker_.reason()));
      return;
  }
}

void Scanner::scan_inputs(const std::vector<std::string>& paths) {
  const unsigned threads = options_.threads != 0 ? options_.threads : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::pair<LogReader::FileId, std::string>> opened;
  for (const std::string& path : paths) {
    auto reader = LogReader::open(path);
    if (const auto& id = reader->file_id()) {
      auto same = std::find_if(opened.begin(), opened.end(), [&](const auto& o) { return o.first == *id; });
      if (same != opened.end()) {
        stats_.warnings.push_back(fmt::format("'{}' is the same file as '{}': read once", path, same->second));
        continue;
      }
      opened.emplace_back(*id, path);
    }
    std::uint32_t source = options_.source_field.empty() ? fleet_.source(reader->name()) : 0;
    if (const auto file = reader->plain_file(); threads > 1 && file) {
      const std::uint64_t before = stats_.bytes;
      scan_in_chunks(*file, reader->name(),
                     ChunkOptions{kMarker, options_.source_field, threads, options_.chunk_bytes}, fleet_, stats_);
      reader->check_still_named(stats_.bytes - before);
      continue;
    }
    std::string_view current;
    auto line_no = [&] { return reader->line_number(current); };
    auto result = reader->for_each_marked(kMarker, [&](std::string_view line) {
      current = line;
      take(line, source, reader->name(), line_no);
    });
    stats_.bytes += result.bytes;
    if (!result.problem.empty()) stats_.problems.push_back(result.problem);
    reader->check_still_named(result.bytes);
  }
}

void Scanner::scan_line_from(std::string_view line, std::string_view source_name) {
  std::string name(source_name);
  std::uint32_t source = options_.source_field.empty() ? fleet_.source(name) : 0;
  stats_.bytes += line.size() + 1;
  std::uint64_t n = ++memory_lines_;  // the line's position among those given
  take(line, source, name, [n] { return n; });
}

}  // namespace forgemeter::cli
