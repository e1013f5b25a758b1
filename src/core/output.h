// output.h — text written out to a file or to stdout, for the commands (and
// the report engine, which writes its renderings with it).
//
// Errors: write_file() and check_writable() throw WriteError naming the path
// and what to do; write_stdout() throws WriteError saying why stdout took no
// more (a full disk; a closed pipe, when SIGPIPE is ignored).
// Thread-safety: as the C library's stdio.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace forgemeter::core_detail {

struct WriteError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void write_file(const std::string& path, std::string_view text);
// Fails as write_file() would fail to open `path`, before any work is done;
// it leaves the file as it was (an existing one untouched, none created).
void check_writable(const std::string& path);
void write_stdout(std::string_view text);
// write_file(), or write_stdout() for "-".
void write_output(const std::string& path, std::string_view text);

}  // namespace forgemeter::core_detail
