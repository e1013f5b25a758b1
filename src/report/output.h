// output.h — a rendered report written out, and the format names the
// commands offer. Errors: write_file() and check_writable() throw Failure
// naming the path and what to do; write_stdout() throws Failure saying why
// stdout took no more (a full disk; a closed pipe, when SIGPIPE is ignored).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "report/render.h"

namespace forgemeter::report {

void write_file(const std::string& path, std::string_view text);
// Fails as write_file() would fail to open `path`, before any work is done;
// it leaves the file as it was (an existing one untouched, none created).
void check_writable(const std::string& path);
void write_stdout(std::string_view text);
// write_file(), or write_stdout() for "-".
void write_output(const std::string& path, std::string_view text);

// The views a report offers: one row per hour, or per hour and replica.
enum class View : std::uint8_t { hour, replica };
// format: "table", "json", "csv" or "html" (the page: every view at once).
std::string render_format(const ReportData& data, std::string_view format, View view = View::hour);

}  // namespace forgemeter::report
