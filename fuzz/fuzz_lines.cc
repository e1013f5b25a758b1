// libFuzzer target for the line parser: scan_line() must never crash, hang or
// read out of bounds on any input, must give a reason for every malformed
// line, and every line it accepts must survive format_line() unchanged
// (scan(format(scan(x))) == scan(x)).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "forgemeter/lines.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const forgemeter::LineScan scan = forgemeter::scan_line(text);
  using Kind = forgemeter::LineScan::Kind;
  if (scan.kind == Kind::malformed && scan.reason.empty()) std::abort();
  if (scan.kind == Kind::line) {
    const std::string again = forgemeter::format_line(scan.line);
    const forgemeter::LineScan rescan = forgemeter::scan_line(again);
    if (rescan.kind != Kind::line || !(rescan.line == scan.line)) std::abort();
    for (char c : again)
      if (static_cast<unsigned char>(c) < 0x20) std::abort();  // no control byte reaches a line
  }
  return 0;
}
