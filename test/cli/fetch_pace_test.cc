// `forgemeter fetch --pace` as a process against a loopback forge whose
// hourly window is 2 s: 30 GETs of one installation whose budget is 20 a
// window. Without --pace the window's 20 go at once and the rest are
// refused (403, the budget spent); with it the requests wait for their turn
// and all 30 are answered 200, spread past the reset.
#include <doctest/doctest.h>

#include <string>

#include "signed_fetch.h"

using namespace fmtest;
namespace tf = forgemeter::testforge;

namespace {

struct PaceRig {
  tf::Forge forge{{.core_window = std::chrono::seconds(2)}};
  TempDir dir;
  std::string token = dir.file("token"), urls = dir.file("urls");
  PaceRig() {
    write_file(token, "inst-7\n");
    ::chmod(token.c_str(), 0600);
    forge.budgets().set_limit(7, 20);
    std::string lines;
    for (int i = 0; i < 30; ++i)
      lines += "GET " + forge.url("api.forge.test", "/repos/o/r/pulls/" + std::to_string(i)) + "\n";
    write_file(urls, lines);
  }
  ProcessResult fetch(std::initializer_list<std::string> more) const {
    std::vector<std::string> args = fetch_args(forge);
    args.insert(args.end(), {"--bearer-file", token, "--installation", "7", "--lane", "sweeper", "--urls", urls});
    args.insert(args.end(), more);
    return run_process(args);
  }
};

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("fetch --pace: 30 GETs on a budget of 20 a window are all answered, none refused") {
  PaceRig rig;
  auto r = rig.fetch({"--pace"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(count(r.out, "200 GET ") == 30);
  CHECK(count(r.out, "403 GET ") == 0);
}

TEST_CASE("fetch without --pace: the same GETs spend the window at once and are refused") {
  PaceRig rig;
  auto r = rig.fetch({});
  INFO(r.out);
  CHECK(count(r.out, "403 GET ") >= 5);  // 20 a window: at least 5 of 30 in the same 2 s are refused
}

TEST_CASE("fetch --pace needs --lane and --installation") {
  tf::Forge forge;
  std::vector<std::string> args = fetch_args(forge);
  args.insert(args.end(), {"--pace", "--installation", "7", forge.url("api.forge.test", "/repos/o/r")});
  auto r = run_process(args);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--pace paces one lane on one installation's budget") != std::string::npos);
}
