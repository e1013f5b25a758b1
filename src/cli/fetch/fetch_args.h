// fetch_args.h — what `forgemeter fetch`'s command line asked for
// (fetch_options.cc reads it, command.cc runs it), and the run itself.
// Thread-safety: plain data, filled by the parser before the run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/fetch/requests.h"

namespace forgemeter::cli {

struct FetchArgs {
  RequestArgs request;
  std::string cacert, urls_file, output, write_out, max_time, connect_timeout, meter_log, dump_header;
  std::vector<std::string> resolve, urls, data, data_binary, data_raw, json;
  std::optional<std::string> user_agent;
  std::string etag_compare, etag_save;  // fetch/etag.h
  int max_redirs = 10, retry = 0, parallel = 1;
  bool include = false, silent = false, show_error = false, verbose = false, fail = false, summary = false;
  bool fail_with_body = false, compressed = false;
  bool location = false;  // -L: accepted for curl's sake; redirects are always followed
  bool cache = false;     // --cache: the Transport's conditional cache, for the run
  bool pace = false;      // --pace: --lane paced on --installation's budget

  // One line per request instead of each answer.
  bool summary_mode() const { return summary || !urls_file.empty() || parallel > 1; }
};

// Sends the requests, writes their answers or summary lines and the meter's
// lines; the process's exit code (the help text of fetch_options.cc).
int run_fetch(const FetchArgs& a);

}  // namespace forgemeter::cli
