#include "cli/lease/say.h"

#include <cstdio>

#include "core/terminal_text.h"
#include "lease/uri/secrets.h"

namespace forgemeter::cli {

void say(const std::string& line) {
  std::fputs((core_detail::terminal_text(lease_uri::scrub("forgemeter: " + line)) + "\n").c_str(), stderr);
}

}  // namespace forgemeter::cli
