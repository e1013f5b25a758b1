// say.h — how `lease run` tells what happens: one line on stderr,
// "forgemeter: " first, with no password (lease_uri::scrub) and no control
// byte (lease names, owners and store messages are anyone's text).
#pragma once

#include <string>

namespace forgemeter::cli {

void say(const std::string& line);

}  // namespace forgemeter::cli
