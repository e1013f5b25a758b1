// The default sink: stderr, one write(2) per line so lines from several
// threads or processes sharing the descriptor never interleave mid-line.
#include <unistd.h>

#include <cerrno>
#include <string>

#include "forgemeter/meter.h"

namespace forgemeter {

LineSink stderr_sink() {
  return [](std::string_view line) {
    std::string buf;
    buf.reserve(line.size() + 1);
    buf.append(line).push_back('\n');
    std::string_view rest = buf;
    while (!rest.empty()) {
      const ssize_t n = ::write(STDERR_FILENO, rest.data(), rest.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // nowhere to write: the line is lost, nothing else is
      rest.remove_prefix(static_cast<std::size_t>(n));
    }
  };
}

}  // namespace forgemeter
