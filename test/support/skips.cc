#include "support/skips.h"

#include <cstdlib>
#include <mutex>
#include <set>

namespace fmtest {

namespace {

// Function-local: a test suite's static initialiser may skip before main.
struct Record {
  std::mutex mu;
  std::set<std::string, std::less<>> reasons;
};
Record& record() {
  static Record r;
  return r;
}

}  // namespace

void skipped(std::string_view why) {
  std::lock_guard lock(record().mu);
  record().reasons.emplace(why);
}

std::string skipped_reasons() {
  std::lock_guard lock(record().mu);
  std::string out;
  for (const auto& r : record().reasons) out += r + "\n";
  return out;
}

std::string ci_forbidden_variables() {
  const char* ci = std::getenv("CI");
  if (ci == nullptr || std::string_view(ci) != "true") return {};
  std::string set;
  for (const char* name : {"FORGEMETER_SKIP_PG", "FORGEMETER_SKIP_BROWSER", "FORGEMETER_MIXED_REQUESTS"})
    if (std::getenv(name) != nullptr) set += std::string(set.empty() ? "" : ", ") + name;
  if (set.empty()) return {};
  return "CI=true: " + set + " would skip or shrink tests; CI runs every test in full (unset it)";
}

}  // namespace fmtest
