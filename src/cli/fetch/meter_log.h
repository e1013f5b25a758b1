// meter_log.h — where `forgemeter fetch --meter-log` sends the meter's lines.
//
//   ""      stderr (the Meter's default sink)
//   "-"     stdout
//   a path  appended to (created mode 0644), so runs add to one log
//
// Each line is one write(2) of the line and its '\n', unbuffered, so what was
// flushed is in the file even when the process then _exits (SIGINT/SIGTERM).
// Errors: CommandError when the file cannot be opened; a failed write loses that line.
#pragma once

#include <string>

#include "forgemeter/meter.h"

namespace forgemeter::cli {

LineSink meter_log_sink(const std::string& where);

}  // namespace forgemeter::cli
