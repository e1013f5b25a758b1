// report_io.h — writing reports out (shared by `report` and `demo`).
#pragma once

#include <string>
#include <string_view>

#include "cli/render.h"

namespace forgemeter::cli {

// Throws Failure saying what to do when the file cannot be written.
void write_file(const std::string& path, std::string_view text);
void write_stdout(std::string_view text);
// format: "table", "json" or "csv".
std::string render_format(const ReportData& data, std::string_view format);

}  // namespace forgemeter::cli
