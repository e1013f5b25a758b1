#include "report/block_scan.h"

#include <algorithm>
#include <cstring>

#include "report/find_marker.h"

namespace forgemeter::report {

namespace {

// Past `stop`, reads are this small: only the end of one line is wanted.
constexpr std::size_t kOverhang = std::size_t{16} << 10;

const char* find_newline(const char* p, const char* end) {
  return static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
}

}  // namespace

void for_each_marked_line(const char* begin, const char* end, std::string_view marker,
                          const std::function<void(std::string_view)>& on_line) {
  const char* p = begin;
  while (p < end) {
    const char* m = find_marker(p, end, marker);
    if (m == nullptr) return;
    const void* prev = memrchr(p, '\n', static_cast<std::size_t>(m - p));
    const char* start = prev != nullptr ? static_cast<const char*>(prev) + 1 : p;
    const char* nl = find_newline(m, end);
    const char* stop = nl != nullptr ? nl : end;
    const char* trimmed = (stop > start && stop[-1] == '\r') ? stop - 1 : stop;
    on_line(std::string_view(start, static_cast<std::size_t>(trimmed - start)));
    p = stop + 1;
  }
}

std::uint64_t scan_blocks(ByteSource& source, std::string_view marker, const BlockScan& scan, std::vector<char>& buffer,
                          const OnMarkedLine& on_line, const OnPassed& on_passed) {
  if (buffer.size() < scan.block) buffer.resize(scan.block);
  std::uint64_t origin = 0;  // offset in the source of buffer[0]
  std::size_t len = 0;       // buffer[0, len): the start of an unfinished line at `origin` (none while discarding)
  std::uint64_t total = 0;
  bool discarding = scan.skip_partial_first;  // dropping bytes up to the next '\n'
  auto pass = [&](std::size_t from, std::size_t to) {
    if (on_passed && to > from) on_passed(buffer.data() + from, buffer.data() + to);
  };
  // The lines of buffer[from, to): `to` is just after a '\n', at a cut, or at the end of the input.
  auto feed = [&](std::size_t from, std::size_t to) {
    const char* base = buffer.data();
    for_each_marked_line(base + from, base + to, marker, [&](std::string_view line) {
      on_line(line, origin + static_cast<std::uint64_t>(line.data() - base));
    });
    pass(from, to);
  };
  for (;;) {
    if (!discarding && origin >= scan.stop) break;  // the next line is not ours
    if (len == buffer.size()) buffer.resize(std::min(buffer.size() * 2, scan.max_line + scan.block));
    std::size_t want = buffer.size() - len;
    if (scan.stop != std::numeric_limits<std::uint64_t>::max()) {
      const std::uint64_t held = origin + len;
      want = static_cast<std::size_t>(
          std::min<std::uint64_t>(want, (scan.stop > held ? scan.stop - held : 0) + kOverhang));
    }
    const std::size_t got = source.read(buffer.data() + len, want);
    total += got;
    if (got == 0) {  // the end: an unterminated last line is still a line
      if (len > 0) feed(0, len);
      break;
    }
    std::size_t start = 0;  // the first line that begins in the buffer
    if (discarding) {       // len == 0
      const char* nl = find_newline(buffer.data(), buffer.data() + got);
      if (nl == nullptr) {
        pass(0, got);
        origin += got;
        continue;
      }
      start = static_cast<std::size_t>(nl + 1 - buffer.data());
      pass(0, start);
      discarding = false;
      if (origin + start >= scan.stop) break;
    }
    len += got;
    const char* const base = buffer.data();
    // The lines that begin before `stop` end at the first '\n' at or after stop - 1.
    std::size_t cut = 0;  // just after the last complete line to read now
    bool last = false;
    if (scan.stop - origin <= len) {  // origin + start < stop here
      if (const char* nl = find_newline(base + (scan.stop - origin - 1), base + len)) {
        cut = static_cast<std::size_t>(nl + 1 - base);
        last = true;
      }
    }
    if (!last) {
      const void* nl = memrchr(base + start, '\n', len - start);
      if (nl == nullptr) {
        if (len - start >= scan.max_line) {  // cut an endless line at max_line bytes; drop the rest of it
          feed(start, start + scan.max_line);
          pass(start + scan.max_line, len);
          origin += len;
          len = 0;
          discarding = true;
          continue;
        }
        std::memmove(buffer.data(), base + start, len - start);
        origin += start;
        len -= start;
        continue;
      }
      cut = static_cast<std::size_t>(static_cast<const char*>(nl) + 1 - base);
    }
    feed(start, cut);
    if (last) break;
    std::memmove(buffer.data(), base + cut, len - cut);
    origin += cut;
    len -= cut;
  }
  return total;
}

}  // namespace forgemeter::report
