// requests.h — what `forgemeter fetch` sends, read from its command line
// and its --urls file: the requests, each checked before anything is sent.
//
// Errors: UsageError for anything the user wrote wrong (a lane, an id, a
// header, a duration, a control byte in a method, URL or header: shown
// escaped, a file that cannot be read or is larger than its bound: 64 KiB for
// a token, 64 MiB for --urls and for a body).
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "forgemeter/transport.h"

namespace forgemeter::cli {

// A body option as curl reads it: -d/--data TEXT or @FILE (@-: stdin; CR and
// LF stripped from a file's text), --data-binary (@FILE as is), --data-raw
// (no @), --json (as --data-binary, and JSON's Content-Type and Accept).
struct DataArg {
  enum class Kind { data, binary, raw, json } kind = Kind::data;
  std::string value;
};

// The request fields every URL shares (-X, -H, -d…, --lane, --installation, --bearer-file).
struct RequestArgs {
  std::string method;  // empty: GET, or POST with a body (as curl does with -d)
  std::string lane, installation, bearer_file;
  std::vector<std::string> headers;
  std::vector<DataArg> data;  // in command-line order
};

// The request every URL starts from. The body is the data pieces joined as
// curl joins them: with '&', but a --json piece straight after the one before.
// -H as curl reads it: 'Name: value' (spaces and tabs around the value
// dropped), 'Name;' sends the header empty, 'Name:' removes it: every earlier
// -H of that name and the one fetch would make (--bearer-file's
// Authorization, --json's Content-Type and Accept; removes_header() for the
// User-Agent). -H 'Authorization: …' wins over --bearer-file (as curl's -H
// replaces a header curl would make; the file is then not read), and of
// several Authorization -H the last: never two on the wire. A bearer file that
// is empty, a directory or unreadable is a usage error; one that group or
// others may read is warned about on stderr. Files are read for at most
// `wait` (-m; 0: no bound): a FIFO no one writes to is then a usage error.
Request base_request(const RequestArgs& a, std::chrono::milliseconds wait);

// Whether the last -H named `name` (any case) is 'Name:', which removes it.
bool removes_header(const RequestArgs& a, std::string_view name);

// The one check for every option that becomes a header (-H, -A,
// --bearer-file): the Transport's rule (transport/request_checks.h: the name
// an HTTP token, the value without a control byte but a tab, so that no CR
// or LF starts another header), as a UsageError naming `option`; a
// credential's value is never shown.
void check_header(std::string_view option, std::string_view name, std::string_view value);

// One request per URL given on the command line.
std::vector<Request> requests_for(const std::vector<std::string>& urls, const Request& base);

// `--urls FILE` (`-`: stdin): one request per line, `METHOD URL [lane=L] [installation=N]`; blank lines and # comments skipped.
std::vector<Request> read_url_file(const std::string& path, const Request& base, std::chrono::milliseconds wait);

// `-m 5`, `--connect-timeout 2.5` (seconds, as curl reads them) or the tool's
// own forms (`500ms`, `1m30s`), rounded up to the millisecond. `allow_zero`:
// 0 is accepted (and returned as 0, "no limit").
std::chrono::milliseconds seconds_or_duration(std::string_view text, std::string_view option, bool allow_zero);

}  // namespace forgemeter::cli
