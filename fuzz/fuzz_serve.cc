// libFuzzer target for the serving room's own code around libmicrohttpd:
// listen addresses, the access-log record (the target with its secrets
// masked, the JSON line) over arbitrary bytes. Every record is one line of
// valid JSON whatever the bytes, and no value of a secret query parameter
// survives into it.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "serve/access_log.h"
#include "serve/listen_address.h"

namespace {

std::vector<std::string_view> fields(std::string_view in) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while (out.size() < 5) {
    const std::size_t end = std::min(in.find('\0', at), in.size());
    out.push_back(in.substr(at, end - at));
    if (end == in.size()) break;
    at = end + 1;
  }
  out.resize(5);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const auto f = fields(in);
  (void)forgemeter::serve::parse_listen_address(f[0]);

  forgemeter::serve::AccessRecord r;
  r.method = std::string(f[1]);
  r.target = forgemeter::serve::masked_target(f[2], f[3]);
  r.peer = std::string(f[4]);
  r.fields = {{std::string(f[0]), std::string(f[4])}};
  const std::string line = forgemeter::serve::json_line(r);
  if (line.empty() || line.back() != '\n' || line.find('\n') != line.size() - 1) std::abort();
  const auto parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) std::abort();
  // A secret's value never survives: `token=X` is `token=***` whatever X is.
  std::string value(f[4]);
  std::erase_if(value, [](char c) { return c == '&'; });
  if (forgemeter::serve::masked_target("/p", "a=1&token=" + value) != "/p?a=1&token=***") std::abort();
  return 0;
}
