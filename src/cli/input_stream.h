// input_stream.h — LogReaders over a stream: pipes, stdin, and gzip (internal to input.cc).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "cli/input.h"

namespace forgemeter::cli {

// Reads `fd` in 8 MiB blocks; inflates it when it starts with the gzip magic.
std::unique_ptr<LogReader> make_stream_reader(std::string name, int fd, bool owns_fd);

// Inflates gzip data held in memory (a mapped file); `release` runs at destruction.
std::unique_ptr<LogReader> make_gzip_reader(std::string name, const char* data, std::size_t size,
                                            std::function<void()> release);

}  // namespace forgemeter::cli
