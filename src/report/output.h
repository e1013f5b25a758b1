// output.h — a rendered report written out, and the format names the
// commands offer. Errors: write_file() throws Failure naming the path and
// what to do; write_stdout() does not fail (a closed stdout is the reader's).
#pragma once

#include <string>
#include <string_view>

#include "report/render.h"

namespace forgemeter::report {

void write_file(const std::string& path, std::string_view text);
void write_stdout(std::string_view text);
// format: "table", "json" or "csv".
std::string render_format(const ReportData& data, std::string_view format);

}  // namespace forgemeter::report
