// fetch_requests.h — what `forgemeter fetch` sends, read from its command line
// and its --urls file: the requests, each checked before anything is sent.
//
// Errors: UsageError for anything the user wrote wrong (a lane, an id, a
// header, a duration, a control byte in a method or URL: shown escaped),
// CommandError when a file cannot be read.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "forgemeter/transport.h"

namespace forgemeter::cli {

// The request fields every URL shares (-X, -H, -d, --lane, --installation, --bearer-file).
struct RequestArgs {
  std::string method;  // empty: GET, or POST with a body (as curl does with -d)
  std::string data, lane, installation, bearer_file;
  std::vector<std::string> headers;
};

// The request every URL starts from.
Request base_request(const RequestArgs& a);

// One request per URL given on the command line.
std::vector<Request> requests_for(const std::vector<std::string>& urls, const Request& base);

// `--urls FILE` (`-`: stdin): one request per line, `METHOD URL [lane=L] [installation=N]`; blank lines and # comments skipped.
std::vector<Request> read_url_file(const std::string& path, const Request& base);

// `-m 5`, `--connect-timeout 2.5` (seconds, as curl reads them) or the tool's
// own forms (`500ms`, `1m30s`), rounded up to the millisecond. `allow_zero`:
// 0 is accepted (and returned as 0, "no limit").
std::chrono::milliseconds seconds_or_duration(std::string_view text, std::string_view option, bool allow_zero);

}  // namespace forgemeter::cli
