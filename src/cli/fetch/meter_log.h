// meter_log.h — where `forgemeter fetch --meter-log` sends the meter's lines.
//
//   ""      stderr (the Meter's default sink)
//   "-"     stdout
//   a path  appended to (created mode 0644), so runs add to one log
//
// Each line is one write(2) of the line and its '\n', unbuffered, so what was
// flushed is in the file even when the process then _exits (SIGINT/SIGTERM).
// Errors: CommandError when the file cannot be opened; a failed or short
// write loses that line and is remembered: problem() says why (fetch then
// exits 1), as lines a user asked for are not lost without a word.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "forgemeter/meter.h"

namespace forgemeter::cli {

class MeterLog {
 public:
  explicit MeterLog(const std::string& where);
  LineSink sink() const;
  // nullopt while every line was written; else "cannot write the meter's lines to …: <reason>".
  std::optional<std::string> problem() const;

 private:
  struct Out;
  std::string where_;
  std::shared_ptr<Out> out_;  // null: stderr
};

}  // namespace forgemeter::cli
