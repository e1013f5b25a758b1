#include "proxy_run.h"

#include <signal.h>

#include <chrono>
#include <stdexcept>

#include "forgemeter_bin.h"
#include "support/eventually.h"

namespace fmtest {
namespace {

// The address after `marker` on a line of `text` ("" when none yet).
std::string address_after(const std::string& text, const std::string& marker) {
  const std::size_t at = text.find(marker);
  if (at == std::string::npos) return "";
  const std::size_t end = text.find('\n', at);
  if (end == std::string::npos) return "";
  return text.substr(at + marker.size(), end - at - marker.size());
}

}  // namespace

ProxyRun::ProxyRun(const forgemeter::testforge::Forge& forge, const std::vector<std::string>& extra)
    : ProxyRun("http://127.0.0.1:" + std::to_string(forge.port()), extra) {}

ProxyRun::ProxyRun(const std::string& upstream, const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {forgemeter_bin(),
                                   "proxy",
                                   "--upstream",
                                   upstream,
                                   "--listen",
                                   "127.0.0.1:0",
                                   "--admin-listen",
                                   "127.0.0.1:0",
                                   "--upstream-lane-header",
                                   "X-Forgemeter-Lane",
                                   "--meter-log",
                                   dir_.file("lines"),
                                   "--access-log",
                                   dir_.file("access")};
  argv.insert(argv.end(), extra.begin(), extra.end());
  pid_ = spawn_process(argv, dir_.file("out"), dir_.file("err")).pid;
  const bool up = eventually(
      [&] {
        const std::string err = stderr_text();
        url_ = address_after(err, "serving on ");
        admin_ = address_after(err, "metrics on ");
        return !url_.empty() && !admin_.empty();
      },
      std::chrono::seconds(20));
  if (!up) throw std::runtime_error("forgemeter proxy did not start: " + stderr_text());
  url_ = "http://" + url_;
  admin_ = "http://" + admin_;
}

ProxyRun::~ProxyRun() {
  if (pid_ > 0) terminate_process(pid_, std::chrono::seconds(10));
}

int ProxyRun::stop() {
  const int code = terminate_process(pid_, std::chrono::seconds(10));
  pid_ = -1;
  return code;
}

void ProxyRun::signal(int sig) const { ::kill(pid_, sig); }

int ProxyRun::wait_exit(std::chrono::milliseconds timeout) {
  const int code = fmtest::wait_exit(pid_, timeout);
  if (code == -1) terminate_process(pid_, std::chrono::milliseconds(0));
  pid_ = -1;
  return code;
}

std::string ProxyRun::meter_lines() const { return read_file(dir_.file("lines")); }
std::string ProxyRun::access_log() const { return read_file(dir_.file("access")); }
std::string ProxyRun::stderr_text() const { return read_file(dir_.file("err")); }

std::string debian_python() { return "/usr/bin/python3"; }
std::string clients_dir() { return FM_TEST_CLIENTS; }

}  // namespace fmtest
