// libFuzzer target for the line parser: scan_line() must never crash, hang or
// read out of bounds on any input, must give a reason for every malformed
// line, and every line it accepts must survive format_line() unchanged
// (scan(format(scan(x))) == scan(x)). The LineReader (one for the run, so its
// reused vectors carry from input to input) must agree: the same kind, the
// same reason, a line of the same kind, hour, note and number of entries.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "forgemeter/line_view.h"
#include "forgemeter/lines.h"

namespace {

bool agree(const forgemeter::MeterLine& owned, const forgemeter::LineView& view) {
  if (owned.index() != view.index()) return false;
  return std::visit(
      [&](const auto& o) {
        return std::visit(
            [&](const auto& v) {
              return o.hour_ending == v.hour_ending && o.note == v.note && o.entries.size() == v.entries.size();
            },
            view);
      },
      owned);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static forgemeter::LineReader reader;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const forgemeter::LineScan scan = forgemeter::scan_line(text);
  using Kind = forgemeter::LineScan::Kind;
  if (scan.kind == Kind::malformed && scan.reason.empty()) std::abort();
  if (reader.scan(text) != scan.kind) std::abort();
  if (scan.kind == Kind::malformed && reader.reason() != scan.reason) std::abort();
  if (scan.kind == Kind::line) {
    if (!agree(scan.line, reader.line())) std::abort();
    const std::string again = forgemeter::format_line(scan.line);
    const forgemeter::LineScan rescan = forgemeter::scan_line(again);
    if (rescan.kind != Kind::line || !(rescan.line == scan.line)) std::abort();
    for (char c : again)
      if (static_cast<unsigned char>(c) < 0x20) std::abort();  // no control byte reaches a line
  }
  return 0;
}
