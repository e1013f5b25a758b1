#include "report/output.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "report/errors.h"

namespace forgemeter::report {

void write_file(const std::string& path, std::string_view text) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) throw Failure(fmt::format("cannot write '{}': {}; choose a writable path", path, std::strerror(errno)));
  if (std::fwrite(text.data(), 1, text.size(), f.get()) != text.size() || std::fflush(f.get()) != 0)
    throw Failure(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
}

void write_stdout(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

std::string render_format(const ReportData& data, std::string_view format) {
  if (format == "json") return render_json(data);
  if (format == "csv") return render_csv(data);
  return render_table(data);
}

}  // namespace forgemeter::report
