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

std::uint64_t scan_blocks(ByteSource& source, std::string_view marker, const BlockScan& o, std::vector<char>& buf,
                          const OnMarkedLine& on_line, const OnPassed& on_passed) {
  if (buf.size() < o.block) buf.resize(o.block);
  std::uint64_t origin = 0;  // offset in the source of buf[0]
  std::size_t len = 0;       // buf[0, len): the start of an unfinished line at `origin` (none while discarding)
  std::uint64_t total = 0;
  bool discarding = o.skip_partial_first;  // dropping bytes up to the next '\n'
  auto pass = [&](std::size_t from, std::size_t to) {
    if (on_passed && to > from) on_passed(buf.data() + from, buf.data() + to);
  };
  // The lines of buf[from, to): `to` is just after a '\n', at a cut, or at the end of the input.
  auto scan = [&](std::size_t from, std::size_t to) {
    const char* base = buf.data();
    for_each_marked_line(base + from, base + to, marker, [&](std::string_view line) {
      on_line(line, origin + static_cast<std::uint64_t>(line.data() - base));
    });
    pass(from, to);
  };
  for (;;) {
    if (!discarding && origin >= o.stop) break;  // the next line is not ours
    if (len == buf.size()) buf.resize(std::min(buf.size() * 2, o.max_line + o.block));
    std::size_t want = buf.size() - len;
    if (o.stop != std::numeric_limits<std::uint64_t>::max()) {
      const std::uint64_t held = origin + len;
      want = static_cast<std::size_t>(std::min<std::uint64_t>(want, (o.stop > held ? o.stop - held : 0) + kOverhang));
    }
    const std::size_t got = source.read(buf.data() + len, want);
    total += got;
    if (got == 0) {  // the end: an unterminated last line is still a line
      if (len > 0) scan(0, len);
      break;
    }
    std::size_t start = 0;  // the first line that begins in the buffer
    if (discarding) {       // len == 0
      const char* nl = find_newline(buf.data(), buf.data() + got);
      if (nl == nullptr) {
        pass(0, got);
        origin += got;
        continue;
      }
      start = static_cast<std::size_t>(nl + 1 - buf.data());
      pass(0, start);
      discarding = false;
      if (origin + start >= o.stop) break;
    }
    len += got;
    const char* const base = buf.data();
    // The lines that begin before `stop` end at the first '\n' at or after stop - 1.
    std::size_t cut = 0;  // just after the last complete line to read now
    bool last = false;
    if (o.stop - origin <= len) {  // origin + start < stop here
      if (const char* nl = find_newline(base + (o.stop - origin - 1), base + len)) {
        cut = static_cast<std::size_t>(nl + 1 - base);
        last = true;
      }
    }
    if (!last) {
      const void* nl = memrchr(base + start, '\n', len - start);
      if (nl == nullptr) {
        if (len - start >= o.max_line) {  // cut an endless line at max_line bytes; drop the rest of it
          scan(start, start + o.max_line);
          pass(start + o.max_line, len);
          origin += len;
          len = 0;
          discarding = true;
          continue;
        }
        std::memmove(buf.data(), base + start, len - start);
        origin += start;
        len -= start;
        continue;
      }
      cut = static_cast<std::size_t>(static_cast<const char*>(nl) + 1 - base);
    }
    scan(start, cut);
    if (last) break;
    std::memmove(buf.data(), base + cut, len - cut);
    origin += cut;
    len -= cut;
  }
  return total;
}

}  // namespace forgemeter::report
