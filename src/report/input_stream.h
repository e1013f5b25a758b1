// input_stream.h — LogReaders over a stream: pipes, stdin, and gzip (internal to input.cc).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "report/block_scan.h"
#include "report/input.h"

namespace forgemeter::report {

// Reads `fd` in 1 MiB blocks (block_scan.h); inflates it when it starts with the gzip magic.
std::unique_ptr<LogReader> make_stream_reader(std::string name, int fd, bool owns_fd);

}  // namespace forgemeter::report
