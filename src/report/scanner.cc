#include "report/scanner.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <thread>

#include "meter/civil.h"
#include "report/block_scan.h"
#include "report/chunk_scan.h"
#include "report/errors.h"
#include "report/input.h"
#include "report/log_record.h"

namespace forgemeter::report {

namespace {

// The value at a dotted path of objects (`kubernetes.pod_name`), or nullptr.
const nlohmann::json* at_path(const nlohmann::json& doc, std::string_view path) {
  const nlohmann::json* at = &doc;
  for (std::size_t from = 0; from <= path.size();) {
    const std::size_t dot = std::min(path.find('.', from), path.size());
    if (!at->is_object()) return nullptr;
    const auto it = at->find(path.substr(from, dot - from));
    if (it == at->end()) return nullptr;
    at = &*it;
    from = dot + 1;
  }
  return at;
}

}  // namespace

std::optional<std::string> json_string_field(std::string_view record, std::string_view key) {
  const std::size_t open = record.find('{');
  if (open == std::string_view::npos) return std::nullopt;
  const auto doc = nlohmann::json::parse(record.begin() + open, record.end(), nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return std::nullopt;  // also what a parse error gives (`discarded`)
  const nlohmann::json* at = nullptr;
  if (const auto it = doc.find(key); it != doc.end())
    at = &*it;
  else if (key.find('.') != std::string_view::npos)
    at = at_path(doc, key);
  if (at == nullptr || !at->is_string()) return std::nullopt;
  return at->get<std::string>();
}

namespace {

constexpr std::string_view kJoinGivenUp =
    "a line split in CRI records flagged P whose F record did not come within the line limit, dropped (not read cut)";

}  // namespace

LineTaker::Taken LineTaker::take(std::string_view line, std::uint32_t default_source, std::string_view where_name) {
  if (join_.joining() || cri_partial(line)) return offer(line, default_source, where_name, true);
  Taken taken;
  take_whole(taken, line, default_source, where_name);
  return taken;
}

LineTaker::Taken LineTaker::take_past_end(std::string_view line, std::uint32_t default_source,
                                          std::string_view where_name) {
  if (!join_.joining()) return {};
  return offer(line, default_source, where_name, false);
}

// `ours`: the line is this reader's to take (not past the end of its part).
// Only a piece holding the marker opens a join (the marked lines a block
// scan hands over: its opening words may be cut).
LineTaker::Taken LineTaker::offer(std::string_view line, std::uint32_t default_source, std::string_view where_name,
                                  bool ours) {
  Taken taken;
  const CriJoin::Offer o = join_.offer(line, ours && line.find(kMarker) != std::string_view::npos);
  for (int i = 0; i < o.given_up; ++i) skip(taken, kJoinGivenUp, true);
  if (o.step == CriJoin::Step::joined) take_whole(taken, join_.text(), default_source, where_name);
  if (o.step == CriJoin::Step::pass && ours) take_whole(taken, line, default_source, where_name);
  return taken;
}

LineTaker::Taken LineTaker::take_unended(std::string_view line) {
  Taken taken;
  if (join_.joining()) return taken;
  const std::size_t at = meter_marker(line);
  if (at == std::string_view::npos || (anchored_ && !starts_message(line, at))) return taken;
  skip(taken,
       "the input's last line has no newline (still being written, or cut): a meter line that may be cut short, "
       "dropped (not read cut)",
       true);
  return taken;
}

LineTaker::Taken LineTaker::end_of_input() {
  Taken taken;
  for (int open = join_.end(); open > 0; --open)
    skip(taken, "a line split in CRI records flagged P whose F record never came: dropped (not read cut)", true);
  return taken;
}

void LineTaker::take_whole(Taken& taken, std::string_view line, std::uint32_t default_source,
                           std::string_view where_name) {
  if (anchored_) {
    const std::size_t at = meter_marker(line);
    if (at == std::string_view::npos || !starts_message(line, at)) return;
  }
  for (std::string_view rest = line;;) {
    const auto kind = reader_.scan(rest);
    if (kind == LineScan::Kind::none) return;
    if (rest.data() == line.data() && kind == LineScan::Kind::line && docker_record(line) &&
        escaped_line_end(line, kDockerText) == std::string_view::npos) {
      // A piece of a longer line, read whole it would count less than was written.
      skip(taken,
           "a Docker json-file record without its line's end (\\n): a piece of a line Docker split at 16 KiB, not "
           "read cut",
           true);
      return;
    }
    if (kind == LineScan::Kind::line) {
      const Took took = sum_read(line, default_source, where_name);
      if (took == Took::summed) ++taken.summed;
      if (took == Took::skipped) skip(taken, hour_reason_, false);
      return;
    }
    const std::size_t at = meter_marker(rest);
    const std::size_t next = anchored_ ? std::string_view::npos : meter_marker(rest, at + 1);
    if (next == std::string_view::npos) {
      skip(taken, reader_.reason(), false);
      return;
    }
    // Writers interleaved: this line was cut by another's; read on from that one.
    skip(taken,
         fmt::format("{}, cut by another line at byte {}: read on from there", reader_.reason(),
                     static_cast<std::size_t>(rest.data() - line.data()) + next + 1),
         true);
    rest.remove_prefix(next);
  }
}

void LineTaker::skip(Taken& taken, std::string_view why, bool dropped) {
  if (taken.skipped == 0) reason_ = why;
  ++taken.skipped;
  if (dropped) ++taken.dropped;
}

LineTaker::Took LineTaker::sum_read(std::string_view log_line, std::uint32_t default_source,
                                    std::string_view where_name) {
  return std::visit([&](const auto& read) { return sum(read, log_line, default_source, where_name); }, reader_.line());
}

template <class Line>
LineTaker::Took LineTaker::sum(const Line& read, std::string_view log_line, std::uint32_t default_source,
                               std::string_view where_name) {
  if (!hour_in_years(read.hour_ending)) {
    hour_reason_ = fmt::format("the hour ending {} is outside the years {} to {}", meter::hour_text(read.hour_ending),
                               kFirstYear, kLastYear);
    return Took::skipped;
  }
  read_.add(read.hour_ending);
  const Line* kept = &read;
  if (filter_ != nullptr) {
    Line& out = std::get<Line>(kept_);
    if (!filter_->apply(read, out)) return Took::none;
    kept = &out;
  }
  std::uint32_t source = default_source;
  if (!source_field_.empty()) {
    auto name = json_string_field(log_line, source_field_);
    source = fleet_.source(name ? *name : fmt::format("{} (no \"{}\")", where_name, source_field_));
  }
  fleet_.add(source, *kept);
  return Took::summed;
}

std::string skip_reason(std::string_view where_name, std::uint64_t line_no, std::string_view reason) {
  return fmt::format("{}:{}: {}", where_name, line_no, reason);
}

std::string over_limit_reason() {
  return fmt::format("a meter line over {} MiB, dropped (not read cut); read on from the next marker or line",
                     kMaxLine >> 20);
}

void Scanner::take(std::string_view line, std::uint32_t default_source, const std::string& where_name,
                   const std::function<std::uint64_t()>& where_line) {
  const bool joining = taker_.joining();
  const LineTaker::Taken taken = taker_.take(line, default_source, where_name);
  if (!joining && taker_.joining() && stats_.reasons.size() < kFirstReasons)
    join_line_ = where_line();  // where a split line's first piece is, should the F never come
  count(taken, where_name, where_line);
}

// `where_line` is asked only for a reason kept: numbering a line may read the file again.
void Scanner::count(const LineTaker::Taken& taken, const std::string& where_name,
                    const std::function<std::uint64_t()>& where_line) {
  stats_.lines += taken.summed;
  stats_.skipped += taken.skipped;
  stats_.dropped += taken.dropped;
  if (taken.skipped > 0 && stats_.reasons.size() < kFirstReasons)
    stats_.reasons.push_back(skip_reason(where_name, where_line(), taker_.reason()));
}

void Scanner::take_unended(std::string_view line, const std::string& where_name,
                           const std::function<std::uint64_t()>& where_line) {
  count(taker_.take_unended(line), where_name, where_line);
}

void Scanner::dropped_over_limit(const std::string& where_name, std::uint64_t line_no) {
  ++stats_.skipped;
  ++stats_.dropped;
  if (stats_.reasons.size() < kFirstReasons)
    stats_.reasons.push_back(skip_reason(where_name, line_no, over_limit_reason()));
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
                     ChunkOptions{kMarker, options_.source_field, threads, options_.chunk_bytes, &options_.filter,
                                  options_.anchored},
                     fleet_, stats_);
      reader->check_still_named(stats_.bytes - before);
      continue;
    }
    std::string_view current;
    auto line_no = [&] { return reader->line_number(current); };
    auto result = reader->for_each_marked(
        kMarker,
        [&](std::string_view line) {
          current = line;
          take(line, source, reader->name(), line_no);
        },
        [&](std::uint64_t dropped_line, std::string_view head) {
          if (meter_marker(head) == 0) dropped_over_limit(reader->name(), dropped_line);
        },
        taker_.follow(),
        [&](std::string_view line) {
          current = line;
          take_unended(line, reader->name(), line_no);
        });
    count(taker_.end_of_input(), reader->name(), [this] { return join_line_; });
    stats_.bytes += result.bytes;
    if (!result.problem.empty()) stats_.problems.push_back(result.problem);
    reader->check_still_named(result.bytes);
  }
  stats_.read.add(taker_.read());
}

void Scanner::scan_line_from(std::string_view line, std::string_view source_name) {
  std::string name(source_name);
  std::uint32_t source = options_.source_field.empty() ? fleet_.source(name) : 0;
  stats_.bytes += line.size() + 1;
  std::uint64_t n = ++memory_lines_;  // the line's position among those given
  take(line, source, name, [n] { return n; });
  stats_.read.add(taker_.read());
}

}  // namespace forgemeter::report
