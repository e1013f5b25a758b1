// output.h — the formats a report is rendered in, and where it is written
// (core/output.h, brought into this namespace: its errors are WriteError).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/output.h"
#include "report/render.h"

namespace forgemeter::report {

using core_detail::check_writable;
using core_detail::write_file;
using core_detail::write_output;
using core_detail::write_stdout;

// The views a report offers: one row per hour, or per hour and replica.
enum class View : std::uint8_t { hour, replica };
// format: "table", "json", "csv" or "html" (the page: every view at once).
std::string render_format(const ReportData& data, std::string_view format, View view = View::hour);

}  // namespace forgemeter::report
