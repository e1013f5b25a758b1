// parse_host_port (host_port.h).
#include "cli/host_port.h"

#include <charconv>
#include <string_view>

namespace forgemeter::cli {

std::variant<HostPort, std::string> parse_host_port(const std::string& addr) {
  const std::size_t colon = addr.rfind(':');
  if (colon == std::string::npos) return std::string("no port");
  HostPort hp{addr.substr(0, colon), 0};
  if (hp.host.size() >= 2 && hp.host.front() == '[' && hp.host.back() == ']')
    hp.host = hp.host.substr(1, hp.host.size() - 2);
  if (hp.host.empty()) return std::string("no host");
  if (hp.host.find_first_of("[]/ ") != std::string::npos ||
      (hp.host.find(':') != std::string::npos && addr.front() != '['))
    return std::string("not a host name or address");
  const std::string_view p = std::string_view(addr).substr(colon + 1);
  const auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), hp.port);
  if (p.empty() || ec != std::errc() || end != p.data() + p.size() || hp.port < 1 || hp.port > 65535)
    return std::string("the port must be a number from 1 to 65535");
  return hp;
}

}  // namespace forgemeter::cli
