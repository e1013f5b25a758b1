// report_run.h — what the report's end-to-end tests share: the fixtures and
// `forgemeter report` run as a process.
#pragma once

#include <string>
#include <vector>

#include "forgemeter_bin.h"

namespace fmtest {

inline std::string fixture(const std::string& name) { return std::string(FIXTURES) + "/" + name; }

// `forgemeter report ARGS…`.
inline ProcessResult report(std::vector<std::string> args, const ProcessOptions& opt = {}) {
  args.insert(args.begin(), {forgemeter_bin(), "report"});
  return run_process(args, opt);
}

// Three replicas' logs with known sums: plain text, JSON records, gzip.
inline const std::vector<std::string> kAll = {fixture("replica-a.log"), fixture("replica-b.json"),
                                              fixture("replica-c.log.gz")};

}  // namespace fmtest
