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
                          const std::function<void(std::string_view)>& on_line, const bool* follow) {
  const char* p = begin;
  while (p < end) {
    const char* m = p;  // following: the next line, whatever it holds
    if (follow == nullptr || !*follow) {
      m = find_marker(p, end, marker);
      if (m == nullptr) return;
    }
    const void* prev = memrchr(p, '\n', static_cast<std::size_t>(m - p));
    const char* start = prev != nullptr ? static_cast<const char*>(prev) + 1 : p;
    const char* nl = find_newline(m, end);
    const char* stop = nl != nullptr ? nl : end;
    const char* trimmed = (stop > start && stop[-1] == '\r') ? stop - 1 : stop;
    on_line(std::string_view(start, static_cast<std::size_t>(trimmed - start)));
    p = stop + 1;
  }
}

namespace {

// The last occurrence of `marker` in [p, end), or nullptr.
const char* last_marker(const char* p, const char* end, std::string_view marker) {
  const char* last = nullptr;
  for (const char* m = find_marker(p, end, marker); m != nullptr; m = find_marker(m + 1, end, marker)) last = m;
  return last;
}

// What the scan drops before the next line it reads.
enum class Skip {
  none,
  partial_first,  // a piece's first bytes, to the first '\n': the previous piece's line
  resync,         // the rest of a meter line over max_line, to the first '\n' or the next marker
};

}  // namespace

// The report's hot loop, over the 60-line bound: its state (skip, mid_line,
// read_more, the buffer's window) is one loop's, and a split must leave the
// report bench (bench/report_bench.sh) unchanged. NOLINTNEXTLINE(readability-function-size)
std::uint64_t scan_blocks(ByteSource& source, std::string_view marker, const BlockScan& scan, std::vector<char>& buffer,
                          const OnMarkedLine& on_line, const OnPassed& on_passed, const OnDropped& on_dropped,
                          const OnMarkedLine& on_unended) {
  if (buffer.size() < scan.block) buffer.resize(scan.block);
  const std::size_t keep = marker.size() - 1;  // a tail that may hold the start of a marker
  std::uint64_t origin = 0;                    // offset in the source of buffer[0]
  std::size_t len = 0;                         // buffer[0, len): the start of an unfinished line at `origin`
  std::uint64_t total = 0;
  Skip skip = scan.skip_partial_first ? Skip::partial_first : Skip::none;
  bool mid_line = false;  // buffer[0] is inside a line that began before it (resynchronised on a marker)
  bool read_more = true;  // false: the buffer holds bytes not looked at yet
  auto pass = [&](std::size_t from, std::size_t to) {
    if (on_passed && to > from) on_passed(buffer.data() + from, buffer.data() + to);
  };
  // The lines of buffer[from, to): `to` is just after a '\n', at a cut, or at the end of the input.
  auto feed = [&](std::size_t from, std::size_t to, const OnMarkedLine& to_whom) {
    const char* base = buffer.data();
    for_each_marked_line(
        base + from, base + to, marker,
        [&](std::string_view line) { to_whom(line, origin + static_cast<std::uint64_t>(line.data() - base)); },
        scan.follow);
    pass(from, to);
  };
  // buffer[from, len) moves to the front.
  auto shift = [&](std::size_t from) {
    std::memmove(buffer.data(), buffer.data() + from, len - from);
    origin += from;
    len -= from;
  };
  // buffer[start, start + max_line) is a line's and holds no '\n'. Only
  // those bytes are looked at, so whoever reads the line, in reads of any
  // size, reads it the same way.
  auto over_limit = [&](std::size_t start) {
    const char* base = buffer.data();
    const char* in_reach = base + std::min(len, start + scan.max_line + keep);
    if (const char* m = last_marker(base + start + 1, in_reach, marker)) {
      // The text before the last marker is read as a line; the line goes on from the marker.
      const auto at = static_cast<std::size_t>(m - base);
      feed(start, at, on_line);
      shift(at);
      mid_line = true;
      return;
    }
    // Nothing to read but what starts at `start`: a meter line over max_line
    // is dropped whole (never read cut) and said; the scan goes on at the
    // next marker or '\n'.
    if (on_dropped && std::string_view(base + start, len - start).starts_with(marker))
      on_dropped(origin + start, std::string_view(base + start, scan.max_line));
    pass(start, start + 1);
    shift(start + 1);
    skip = Skip::resync;
  };
  auto following = [&] { return scan.follow != nullptr && *scan.follow; };
  for (;;) {
    if (skip == Skip::none && !mid_line && origin >= scan.stop && !following()) break;  // the next line is not ours
    if (read_more) {
      if (len == buffer.size()) buffer.resize(std::min(buffer.size() * 2, scan.max_line + scan.block));
      std::size_t want = buffer.size() - len;
      if (scan.stop != std::numeric_limits<std::uint64_t>::max()) {
        const std::uint64_t held = origin + len;
        want = static_cast<std::size_t>(
            std::min<std::uint64_t>(want, (scan.stop > held ? scan.stop - held : 0) + kOverhang));
      }
      const std::size_t got = source.read(buffer.data() + len, want);
      total += got;
      if (got == 0) {  // the end: lines not read yet, then maybe one that no '\n' ended
        if (skip == Skip::none) {
          const void* nl = memrchr(buffer.data(), '\n', len);
          const std::size_t ended =
              nl != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nl) + 1 - buffer.data()) : 0;
          feed(0, ended, on_line);
          feed(ended, len, on_unended ? on_unended : on_line);
        } else {
          pass(0, len);  // a kept tail without a marker
        }
        break;
      }
      len += got;
    }
    read_more = true;
    const char* const base = buffer.data();
    std::size_t start = 0;  // the first line that begins in the buffer
    if (skip != Skip::none) {
      const char* nl = find_newline(base, base + len);
      const char* m = skip == Skip::resync ? find_marker(base, nl != nullptr ? nl : base + len, marker) : nullptr;
      if (m != nullptr) {  // resynchronised: a line goes on from the marker
        start = static_cast<std::size_t>(m - base);
        pass(0, start);
        skip = Skip::none;
        mid_line = true;
      } else if (nl == nullptr) {
        const std::size_t kept = skip == Skip::resync ? std::min(len, keep) : 0;
        pass(0, len - kept);
        shift(len - kept);
        continue;
      } else {
        start = static_cast<std::size_t>(nl + 1 - base);
        pass(0, start);
        skip = Skip::none;
        mid_line = false;
        if (origin + start >= scan.stop) break;
      }
    }
    if (len - start >= scan.max_line && find_newline(base + start, base + start + scan.max_line) == nullptr) {
      over_limit(start);
      read_more = false;
      continue;
    }
    // The lines that begin before `stop` end at the first '\n' at or after stop - 1.
    std::size_t cut = 0;  // just after the last complete line to read now
    bool last = false;
    if (scan.stop <= origin + len && !following()) {
      const std::size_t from = scan.stop > origin ? std::max<std::size_t>(start, scan.stop - origin - 1) : start;
      if (const char* nl = find_newline(base + from, base + len)) {
        cut = static_cast<std::size_t>(nl + 1 - base);
        last = true;
      }
    }
    if (!last) {
      const void* nl = memrchr(base + start, '\n', len - start);
      if (nl == nullptr) {
        shift(start);
        continue;
      }
      cut = static_cast<std::size_t>(static_cast<const char*>(nl) + 1 - base);
    }
    feed(start, cut, on_line);
    mid_line = false;
    if (last && !following()) break;  // else a split line's pieces run on past stop
    shift(cut);
  }
  return total;
}

}  // namespace forgemeter::report
